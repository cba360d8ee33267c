#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "clanes_threads.h"

#if defined(__linux__)
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int32_t clanes_thread_id(void) { return (int32_t)syscall(SYS_gettid); }

int clanes_thread_is_blocked(int32_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    // "TID (NAME) STATE ...": NAME may hold spaces and parentheses, so the state follows the last ')'.
    char line[512];
    ssize_t length = read(fd, line, sizeof line - 1);
    close(fd);
    if (length <= 0) return -1;
    line[length] = '\0';
    const char *close_paren = strrchr(line, ')');
    if (close_paren == NULL || close_paren[1] != ' ' || close_paren[2] == '\0') return -1;
    char state = close_paren[2];
    return state == 'S' || state == 'D' ? 1 : 0;
}
#else
int32_t clanes_thread_id(void) { return 0; }

int clanes_thread_is_blocked(int32_t tid) {
    (void)tid;
    return -1;
}
#endif
