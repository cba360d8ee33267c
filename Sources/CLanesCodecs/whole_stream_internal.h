/* The canvas the WebP and AVIF streams share (whole_stream.c); each format supplies its encode call. */
#ifndef CLANES_WHOLE_STREAM_INTERNAL_H
#define CLANES_WHOLE_STREAM_INTERNAL_H

#include "clanes_whole_encode.h"
#include "codecs_internal.h"

/* Encodes the finished canvas into `output` (memory); CLANES_OK or an error with its message. */
typedef int32_t (*clanes_whole_encode_fn)(const clanes_whole_stream *stream, clanes_buffer *output,
                                          char *message, size_t capacity);

struct clanes_whole_stream {
    clanes_whole_encode_options options;
    const char *codec;          /* "WebP", "AVIF": for messages */
    clanes_whole_encode_fn encode;
    uint8_t *canvas;            /* width * height * 4 */
    uint32_t rows;
    int state;
};

/* Checks `options` against what every such stream needs (max_side pixels per side, quality 0...100) and makes the
 * stream with its canvas; the caller checks its own options first. */
int32_t clanes_whole_stream_create(const clanes_whole_encode_options *options, uint32_t max_side, const char *codec,
                                   clanes_whole_encode_fn encode, clanes_whole_stream **stream,
                                   char *message, size_t capacity);

#endif
