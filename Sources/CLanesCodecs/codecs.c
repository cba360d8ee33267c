#include "clanes_codecs.h"
int clanes_codecs_version(void) { return 1; }
