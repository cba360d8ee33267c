#ifndef CLANES_CODECS_H
#define CLANES_CODECS_H
int clanes_codecs_version(void);
#endif
