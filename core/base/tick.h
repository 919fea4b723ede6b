/*
 * tick.c: slow periodic timers fire together, one wake-up (base room).
 */
#ifndef GP_BASE_TICK_H
#define GP_BASE_TICK_H

#include <stdint.h>

struct timeval;

int tick_aligned(uint64_t period_ms);
void tick_next(uint64_t period_ms, struct timeval *);

#endif
