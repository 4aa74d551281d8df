/* A stand-in bcryptprimitives.dll for running rho's Windows build under Debian's Wine 8 in CI
 * (test-only; never shipped). Rust's standard library takes its randomness from
 * bcryptprimitives.dll's ProcessPrng, which Wine 8 does not export, so no Rust program starts
 * there. This DLL exports ProcessPrng and answers it with RtlGenRandom (advapi32's
 * SystemFunction036), which Wine has. scripts/wine-run builds it beside the executable. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
