#ifndef LANES_CGLIB_SHIM_H
#define LANES_CGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>

// libdispatch's hooks for a foreign run loop (CoreFoundation uses them; its private.h is not installed).
// On Linux the handle is an eventfd that libdispatch writes when the main queue has work; the callback drains a
// snapshot of the main queue. Both must be called on the main thread, and never after dispatch_main().
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *_Nullable message);

#endif
