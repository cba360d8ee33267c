/*
 * The JPEG part's rows (rows_internal.h): libjpeg scanlines over the core's input (libjpeg's memory source, or a
 * 64 KB buffer filled with pread), DCT-scaled by 1/2, 1/4 or 1/8 on request. It holds libjpeg's strip of one iMCU
 * row (a progressive JPEG also its whole coefficient image, as libjpeg must) plus one CMYK row. All libjpeg state
 * lives in the heap, so it stays valid after a longjmp.
 */
#include "codecs_internal.h"
#include "jpeg_internal.h"
#include "rows_internal.h"

#include <stdlib.h>
#include <string.h>

#include <jerror.h>

#define JPEG_ROWS_CHUNK 65536

typedef struct jpeg_rows_state {
    clanes_jpeg_reader r;
    uint8_t *chunk; /* the file reader's buffer */
} jpeg_rows_state;

static boolean jpeg_rows_fill(j_decompress_ptr cinfo) {
    clanes_row_decoder *d = (clanes_row_decoder *)cinfo->client_data;
    jpeg_rows_state *s = (jpeg_rows_state *)d->state;
    size_t got = clanes_rows_read_input(d, s->chunk, JPEG_ROWS_CHUNK);
    if (got == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF); /* our emit_message makes it a truncation error */
        s->chunk[0] = 0xFF;           /* as libjpeg's own sources do: a fake EOI */
        s->chunk[1] = JPEG_EOI;
        got = 2;
    }
    s->r.source.next_input_byte = s->chunk;
    s->r.source.bytes_in_buffer = got;
    return TRUE;
}

static void jpeg_rows_skip(j_decompress_ptr cinfo, long count) {
    clanes_row_decoder *d = (clanes_row_decoder *)cinfo->client_data;
    jpeg_rows_state *s = (jpeg_rows_state *)d->state;
    if (count <= 0) {
        return;
    }
    size_t skip = (size_t)count;
    if (skip <= s->r.source.bytes_in_buffer) {
        s->r.source.next_input_byte += skip;
        s->r.source.bytes_in_buffer -= skip;
        return;
    }
    skip -= s->r.source.bytes_in_buffer;
    s->r.source.bytes_in_buffer = 0;
    d->offset = skip > d->size - d->offset ? d->size : d->offset + skip;
}

/* After the setjmp: the header, the output choice and the start of decompression. */
static int32_t jpeg_rows_start(clanes_row_decoder *d, jpeg_rows_state *s, int32_t scale_denom) {
    if (jpeg_read_header(&s->r.cinfo, TRUE) != JPEG_HEADER_OK) {
        clanes_set_message(d->message, d->capacity, "JPEG holds tables but no image");
        return CLANES_ERR_CORRUPT;
    }
    int32_t output = clanes_jpeg_choose_rgba_output(&s->r.cinfo, &s->r.cmyk, d->message, d->capacity);
    if (output != CLANES_OK) {
        return output;
    }
    s->r.cinfo.scale_num = 1;
    s->r.cinfo.scale_denom = (unsigned int)scale_denom;
    s->r.cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&s->r.cinfo);
    d->layout.width = s->r.cinfo.output_width;
    d->layout.height = s->r.cinfo.output_height;
    d->layout.channels = 4;
    d->layout.bytes_per_sample = 1;
    d->layout.whole_image = 0;
    d->layout.opaque = 1;
    size_t row = (size_t)d->layout.width * 4;
    /* The decoder's strip (one iMCU row, up to 16 output rows) and, progressive, its coefficients. */
    d->layout.held_bytes = row * 16 + (s->r.cinfo.progressive_mode
        ? (size_t)s->r.cinfo.image_width * s->r.cinfo.image_height * (size_t)s->r.cinfo.num_components * 2 : 0);
    if (s->r.cmyk) {
        s->r.cmyk_row = (uint8_t *)malloc(row);
        if (s->r.cmyk_row == NULL) {
            clanes_set_message(d->message, d->capacity, "out of memory for a CMYK row");
            return CLANES_ERR_NO_MEMORY;
        }
        d->layout.held_bytes += row;
    }
    return CLANES_OK;
}

static int32_t jpeg_rows_open(clanes_row_decoder *d, const clanes_row_request *request) {
    jpeg_rows_state *s = (jpeg_rows_state *)clanes_jpeg_reader_new(sizeof(jpeg_rows_state), d->message, d->capacity);
    d->state = s;
    if (s == NULL) return CLANES_ERR_NO_MEMORY;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    clanes_jpeg_create_limited(&s->r.cinfo, &s->r.progress, d, &s->r.created);
    if (d->data != NULL) {
        jpeg_mem_src(&s->r.cinfo, d->data, (unsigned long)d->size);
    } else {
        s->chunk = (uint8_t *)malloc(JPEG_ROWS_CHUNK);
        if (s->chunk == NULL) {
            clanes_set_message(d->message, d->capacity, "out of memory for a read buffer");
            return CLANES_ERR_NO_MEMORY;
        }
        clanes_jpeg_use_source(&s->r.cinfo, &s->r.source, jpeg_rows_fill, jpeg_rows_skip);
    }
    return jpeg_rows_start(d, s, request->scale_denom);
}

static int32_t jpeg_rows_read(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count) {
    jpeg_rows_state *s = (jpeg_rows_state *)d->state;
    s->r.error.message = d->message;
    s->r.error.capacity = d->capacity;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!clanes_jpeg_reader_row(&s->r, rows + (size_t)i * bytes_per_row)) {
            clanes_set_message(d->message, d->capacity, "JPEG decoder stalled");
            return CLANES_ERR_CORRUPT;
        }
    }
    return CLANES_OK;
}

static void jpeg_rows_close(clanes_row_decoder *d) {
    jpeg_rows_state *s = (jpeg_rows_state *)d->state;
    if (s == NULL) return;
    clanes_jpeg_reader_end(&s->r);
    free(s->chunk);
    free(s);
    d->state = NULL;
}

const clanes_row_part clanes_jpeg_rows = {jpeg_rows_open, jpeg_rows_read, jpeg_rows_close, 1, 0};
