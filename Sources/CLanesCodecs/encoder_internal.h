/* What encoder.c (the one row encoder's entry points) and each format's part share. Not part of the public header. */
#ifndef CLANES_ENCODER_INTERNAL_H
#define CLANES_ENCODER_INTERNAL_H

#include "clanes_codecs.h"
#include "codecs_internal.h"

enum { CLANES_ENCODER_OPEN = 0, CLANES_ENCODER_FINISHED = 1, CLANES_ENCODER_FAILED = 2 };

/* One format's part of an encoder: encoder.c checks every argument and the state, then calls these. */
typedef struct clanes_encoder_format {
    const char *name;   /* "PNG", "JPEG" (messages) */
    uint32_t max_side;  /* pixels per side the format holds */
    /* The format's own options (level, quality...): CLANES_OK or CLANES_ERR_ARGUMENT with a message. */
    int32_t (*check)(const clanes_encode_options *options, char *message, size_t capacity);
    /* Allocates `format_state` and writes the header. */
    int32_t (*start)(clanes_encoder *encoder);
    /* Encodes `count` rows `bytes_per_row` apart (checked to fit below the height). */
    int32_t (*rows)(clanes_encoder *encoder, const uint8_t *pixels, size_t bytes_per_row, uint32_t count);
    /* Writes the end of the file (every row is in). */
    int32_t (*end)(clanes_encoder *encoder);
    /* Frees `format_state` (it may be NULL, or half made after a failed start). */
    void (*destroy)(clanes_encoder *encoder);
} clanes_encoder_format;

extern const clanes_encoder_format clanes_png_encoder_format;
extern const clanes_encoder_format clanes_jpeg_encoder_format;
extern const clanes_encoder_format clanes_webp_encoder_format;
extern const clanes_encoder_format clanes_avif_encoder_format;

/*
 * The parts of the formats whose libraries encode a whole picture (WebP, AVIF; canvas_encoder.c): the rows are gathered
 * into one RGBA8 canvas, which the format's `end` encodes (clanes_canvas_pixels) and frees (clanes_canvas_release).
 */
int32_t clanes_canvas_check(const clanes_encode_options *options, const char *name, int32_t max_effort, char *message,
                            size_t capacity);
int32_t clanes_canvas_start(clanes_encoder *encoder);
int32_t clanes_canvas_rows(clanes_encoder *encoder, const uint8_t *pixels, size_t bytes_per_row, uint32_t count);
const uint8_t *clanes_canvas_pixels(const clanes_encoder *encoder);
void clanes_canvas_release(clanes_encoder *encoder);

struct clanes_encoder {
    clanes_encode_options options;
    const clanes_encoder_format *format;
    void *format_state;
    size_t row_bytes;      /* width * channels * bytes per sample */
    uint32_t rows;         /* rows written */
    int state;
    clanes_buffer output;  /* fd < 0: the file so far; with a descriptor, the format's write window if it has one */
    size_t written;        /* bytes written to the descriptor */
    int io_errno;          /* a failed write(2) */
    int out_of_memory;
    char *message;         /* the current call's message buffer */
    size_t capacity;
};

/*
 * Hands `length` bytes to the output: appended in memory, or written to the descriptor (EINTR and short writes
 * retried). 1 on success; 0 with `out_of_memory` or `io_errno` set, for the format to raise its own error.
 */
int clanes_encoder_emit(clanes_encoder *encoder, const uint8_t *bytes, size_t length);

#endif
