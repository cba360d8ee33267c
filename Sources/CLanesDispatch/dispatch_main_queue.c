#include "clanes_dispatch.h"

#if defined(__linux__) || defined(__FreeBSD__) || defined(__ANDROID__)
// Declared in libdispatch's src/shims/ and private headers; `dispatch_runloop_handle_t` is an int (an eventfd) here.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

int clanes_main_queue_handle(void) { return _dispatch_get_main_queue_handle_4CF(); }
void clanes_main_queue_drain(void) { _dispatch_main_queue_callback_4CF((void *)0); }
#elif defined(__APPLE__)
extern void _dispatch_main_queue_callback_4CF(void *msg);

int clanes_main_queue_handle(void) { return -1; }
void clanes_main_queue_drain(void) { _dispatch_main_queue_callback_4CF((void *)0); }
#else
int clanes_main_queue_handle(void) { return -1; }
void clanes_main_queue_drain(void) {}
#endif
