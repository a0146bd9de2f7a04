/* Reading and writing PKRU, the register of memory protection key rights (RDPKRU and WRPKRU
 * by their encodings, which assemblers without PKU support accept). Shared by buffer
 * checking (buffers_internal.h) and benches/buffer_mechanisms.c. x86-64 only. */
#ifndef MPICHECK_PKRU_H
#define MPICHECK_PKRU_H

#include <stdint.h>

static inline uint32_t read_pkru(void)
{
    uint32_t eax, edx;
    __asm__ volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
    return eax;
}

static inline void write_pkru(uint32_t value)
{
    __asm__ volatile(".byte 0x0f, 0x01, 0xef" : : "a"(value), "c"(0), "d"(0) : "memory");
}

#endif
