#ifndef LANES_CLANESGLIB_SHIM_H
#define LANES_CLANESGLIB_SHIM_H

#include <glib.h>
#include <glib-unix.h>
#include <gio/gio.h>

#endif
