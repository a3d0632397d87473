/*
 * Test-only stand-in for Windows' bcryptprimitives.dll, which Wine 8 does not have. Rust's std
 * (x86_64-pc-windows-gnu) imports ProcessPrng from it for HashMap seeds and the like; without the
 * DLL the FMU fails to load under Wine although it loads on every Windows 10. tests/win64/run.sh
 * builds this into the throwaway Wine prefix; it is never part of the .fmu.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
