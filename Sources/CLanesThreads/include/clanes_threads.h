#ifndef CLANES_THREADS_H
#define CLANES_THREADS_H

#include <stdint.h>

// Thread scheduling calls Swift cannot make directly (`syscall` is variadic).

/// Puts the calling thread at nice value `nice` under the normal (fair) policy and, where the kernel supports it
/// (Linux 6.12+, EEVDF), asks for a time slice of `slice_ns` nanoseconds (0 = the default). A short slice lets a
/// waking thread of higher weight, such as the main thread, take the processor at once instead of waiting for the
/// running thread's protected slice (one scheduler tick) to end. Needs no privilege as long as `nice` only rises.
/// Returns 0 on success, -1 when the slice was refused and only the nice value was set, -2 when neither was.
int clanes_thread_set_fair_level(int nice, uint64_t slice_ns);

/// The kernel's id of the calling thread (Linux `gettid`); 0 where there is none.
int32_t clanes_thread_id(void);

/// Whether thread `tid` of this process is blocked: 1 when the kernel has it asleep or waiting on I/O (state `S` or
/// `D` in `/proc/self/task/TID/stat`), 0 when it is running or runnable, -1 when that cannot be read (not Linux, or
/// the thread is gone).
int clanes_thread_is_blocked(int32_t tid);

#endif
