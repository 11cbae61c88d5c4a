/* The core's random numbers: SplitMix64 (Steele, Lea & Flood, 2014), whose doubles in [0, 1) are drawn as
 * Python's random() draws them (53 bits). converge/bots/search.py has the same generator in Python, so
 * the reference search and this one see the same numbers and can be compared draw for draw. */
#ifndef CONVERGE_RNG_H
#define CONVERGE_RNG_H

#include <stdint.h>

static inline uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double rng_random(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

#endif
