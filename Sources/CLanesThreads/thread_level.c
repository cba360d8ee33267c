#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "clanes_threads.h"

#if defined(__linux__)
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

// The kernel's `struct sched_attr` (uapi linux/sched/types.h, whose `sched_param` clashes with glibc's).
struct clanes_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
};

int clanes_thread_set_fair_level(int nice, uint64_t slice_ns) {
#if defined(SYS_sched_setattr)
    struct clanes_sched_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.sched_policy = SCHED_OTHER;
    attr.sched_nice = nice;
    attr.sched_runtime = slice_ns;  // for fair tasks: the requested slice (ignored before Linux 6.12)
    if (syscall(SYS_sched_setattr, 0, &attr, 0) == 0) return 0;
#endif
    // PRIO_PROCESS with id 0 names the calling thread on Linux.
    return setpriority(PRIO_PROCESS, 0, nice) == 0 ? -1 : -2;
}
#else
int clanes_thread_set_fair_level(int nice, uint64_t slice_ns) {
    (void)nice;
    (void)slice_ns;
    return -2;
}
#endif
