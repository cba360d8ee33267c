#ifndef LANES_CGTK_SHIM_H
#define LANES_CGTK_SHIM_H

#include <gtk/gtk.h>

#endif
