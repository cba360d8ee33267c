#ifndef LANES_CGTK4_SHIM_H
#define LANES_CGTK4_SHIM_H

#include <gtk/gtk.h>

#endif
