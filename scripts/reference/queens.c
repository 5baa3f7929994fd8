/*
 * A plain single-threaded N-queens counter, the yardstick of
 * scripts/compare-reference.sh where the classic reference is not at hand:
 * the bitmask depth-first search (columns and both diagonals as bit sets,
 * the lowest free square taken first), with the first row's left half
 * counted twice (its mirror images) and, for odd N, its middle column once.
 *
 *   cc -O3 -march=native -o queens scripts/reference/queens.c && ./queens 12
 *   12 14200
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t below(uint32_t all, uint32_t cols, uint32_t left, uint32_t right)
{
    if (cols == all)
        return 1;
    uint64_t count = 0;
    uint32_t free = all & ~(cols | left | right);
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
        count += below(all, cols | bit, (left | bit) << 1, (right | bit) >> 1);
    }
    return count;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || *end != '\0' || n < 1 || n > 31) {
        fprintf(stderr, "usage: %s N (a board size from 1 to 31)\n", argv[0]);
        return 2;
    }
    uint32_t all = (uint32_t)((UINT64_C(1) << n) - 1);
    uint64_t total = 0;
    for (long col = 0; col < n / 2; col++) {
        uint32_t bit = UINT32_C(1) << col;
        total += 2 * below(all, bit, bit << 1, bit >> 1);
    }
    if (n % 2) {
        uint32_t bit = UINT32_C(1) << (n / 2);
        total += below(all, bit, bit << 1, bit >> 1);
    }
    printf("%ld %llu\n", n, (unsigned long long)total);
    return 0;
}
