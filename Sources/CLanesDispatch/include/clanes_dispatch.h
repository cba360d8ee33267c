#ifndef CLANES_DISPATCH_H
#define CLANES_DISPATCH_H

// libdispatch's run-loop integration (the SPI CoreFoundation uses to drain the main queue on the main thread).
// Its header (`private.h`) is not installed, so Lanes declares the two functions it needs here and wraps them.

/// The main queue's wake-up descriptor: an eventfd on Linux, readable while main-queue work waits; -1 where the
/// platform has no descriptor (Darwin hands out a Mach port instead, which Lanes does not use).
int clanes_main_queue_handle(void);

/// Runs the main-queue work waiting now (a snapshot). Main thread only; a no-op after `dispatch_main()`.
void clanes_main_queue_drain(void);

#endif
