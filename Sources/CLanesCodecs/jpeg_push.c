/*
 * The JPEG part's decoding of pushed bytes (incremental_internal.h): libjpeg through a suspending source manager, so
 * a call decodes as far as the bytes so far allow and returns. A progressive JPEG asked for previews is decoded in
 * buffered-image mode: after each completed scan the coefficients so far can be rendered. Rows are RGBA8. All
 * libjpeg state lives in the heap, so it stays valid after a longjmp.
 */
#include "codecs_internal.h"
#include "incremental_internal.h"
#include "jpeg_internal.h"

#include <stdlib.h>
#include <string.h>

#include <jerror.h>

enum { JPEG_AT_HEADER, JPEG_AT_START, JPEG_AT_SCANS, JPEG_AT_OUTPUT, JPEG_AT_ROWS };

typedef struct jpeg_push_state {
    clanes_jpeg_reader r;
    int stage;
    int buffered;
    size_t skip;          /* bytes libjpeg asked to skip that had not arrived yet */
} jpeg_push_state;

static boolean jpeg_push_fill(j_decompress_ptr cinfo) {
    clanes_incremental *d = (clanes_incremental *)cinfo->client_data;
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    if (!d->end_of_input) {
        return FALSE; /* suspend: the caller feeds more and calls again */
    }
    WARNMS(cinfo, JWRN_JPEG_EOF); /* the installed emit_message makes this a truncation error */
    static const uint8_t eoi[2] = { 0xFF, JPEG_EOI };
    s->r.source.next_input_byte = eoi;
    s->r.source.bytes_in_buffer = 2;
    return TRUE;
}

static void jpeg_push_skip(j_decompress_ptr cinfo, long count) {
    clanes_incremental *d = (clanes_incremental *)cinfo->client_data;
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    if (count <= 0) return;
    size_t skip = (size_t)count;
    if (skip <= s->r.source.bytes_in_buffer) {
        s->r.source.next_input_byte += skip;
        s->r.source.bytes_in_buffer -= skip;
        return;
    }
    s->skip += skip - s->r.source.bytes_in_buffer;
    s->r.source.next_input_byte += s->r.source.bytes_in_buffer;
    s->r.source.bytes_in_buffer = 0;
}

/* Points libjpeg's source at the unconsumed input (after any skip it still owes), messages at this call's buffer. */
static void jpeg_push_sync_in(clanes_incremental *d, jpeg_push_state *s) {
    size_t skip = s->skip < d->size - d->position ? s->skip : d->size - d->position;
    d->position += skip;
    s->skip -= skip;
    s->r.source.next_input_byte = d->input + d->position;
    s->r.source.bytes_in_buffer = d->size - d->position;
    s->r.error.message = d->message;
    s->r.error.capacity = d->capacity;
}

/* After libjpeg read from the source: what it consumed. */
static void jpeg_push_sync_out(clanes_incremental *d, const jpeg_push_state *s) {
    d->position = d->size - s->r.source.bytes_in_buffer;
}

static int32_t jpeg_push_header(clanes_incremental *d, jpeg_push_state *s) {
    int read = jpeg_read_header(&s->r.cinfo, TRUE);
    if (read == JPEG_SUSPENDED) return CLANES_OK;
    if (read != JPEG_HEADER_OK) {
        clanes_set_message(d->message, d->capacity, "JPEG holds tables but no image");
        return CLANES_ERR_CORRUPT;
    }
    if ((uint64_t)s->r.cinfo.image_width * s->r.cinfo.image_height > d->options.max_pixels) {
        clanes_set_message(d->message, d->capacity, "JPEG of %ux%u is over the limit of %llu pixels",
                           s->r.cinfo.image_width, s->r.cinfo.image_height, (unsigned long long)d->options.max_pixels);
        return CLANES_ERR_TOO_LARGE;
    }
    int32_t output = clanes_jpeg_choose_rgba_output(&s->r.cinfo, &s->r.cmyk, d->message, d->capacity);
    if (output != CLANES_OK) {
        return output;
    }
    s->r.cinfo.dct_method = JDCT_ISLOW;
    s->r.cinfo.scale_num = 1;
    s->r.cinfo.scale_denom = d->options.scale_denom > 1 ? (unsigned int)d->options.scale_denom : 1;
    jpeg_calc_output_dimensions(&s->r.cinfo);
    s->buffered = s->r.cinfo.progressive_mode && d->options.previews;
    s->r.cinfo.buffered_image = s->buffered ? TRUE : FALSE;
    d->state.width = s->r.cinfo.output_width;
    d->state.height = s->r.cinfo.output_height;
    d->state.opaque = 1;
    d->state.progressive = s->r.cinfo.progressive_mode ? 1 : 0;
    d->row_bytes = (size_t)d->state.width * 4;
    d->state.header_ready = 1;
    s->stage = JPEG_AT_START;
    return CLANES_OK;
}

static int32_t jpeg_push_start(clanes_incremental *d) {
    jpeg_push_state *s = (jpeg_push_state *)clanes_jpeg_reader_new(sizeof(jpeg_push_state), d->message, d->capacity);
    d->codec = s;
    if (s == NULL) return CLANES_ERR_NO_MEMORY;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    clanes_jpeg_create_limited(&s->r.cinfo, &s->r.progress, d, &s->r.created);
    clanes_jpeg_use_source(&s->r.cinfo, &s->r.source, jpeg_push_fill, jpeg_push_skip);
    return CLANES_OK;
}

/* A buffered file's scans as far as the input goes, counting the previews they make. */
static void jpeg_push_scans(clanes_incremental *d, jpeg_push_state *s) {
    while (s->stage == JPEG_AT_SCANS) {
        int consumed = jpeg_consume_input(&s->r.cinfo);
        if (consumed == JPEG_REACHED_EOI) {
            s->stage = JPEG_AT_OUTPUT;
            d->state.input_complete = 1;
            d->state.previews_ready = 0;
        } else {
            d->state.previews_ready = s->r.cinfo.input_scan_number > 1 ? (uint32_t)s->r.cinfo.input_scan_number - 1 : 0;
            if (consumed == JPEG_SUSPENDED) break;
        }
    }
}

/* Decodes as far as the input allows without output: header, start, and a buffered file's scans. */
static int32_t jpeg_push_advance(clanes_incremental *d) {
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    jpeg_push_sync_in(d, s);
    int32_t status = CLANES_OK;
    if (s->stage == JPEG_AT_HEADER) {
        status = jpeg_push_header(d, s);
    }
    if (status == CLANES_OK && s->stage == JPEG_AT_START && jpeg_start_decompress(&s->r.cinfo)) {
        if (s->r.cmyk && s->r.cmyk_row == NULL) {
            s->r.cmyk_row = (uint8_t *)malloc(d->row_bytes);
            if (s->r.cmyk_row == NULL) {
                clanes_set_message(d->message, d->capacity, "out of memory for a CMYK row");
                status = CLANES_ERR_NO_MEMORY;
            }
        }
        s->stage = s->buffered ? JPEG_AT_SCANS : JPEG_AT_ROWS;
    }
    if (status == CLANES_OK) jpeg_push_scans(d, s);
    if (status == CLANES_OK && s->stage == JPEG_AT_OUTPUT && jpeg_start_output(&s->r.cinfo, s->r.cinfo.input_scan_number)) {
        s->stage = JPEG_AT_ROWS;
    }
    jpeg_push_sync_out(d, s);
    return status;
}

static int32_t jpeg_push_read(clanes_incremental *d, clanes_incremental_call *call) {
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    int32_t status = jpeg_push_advance(d);
    if (status != CLANES_OK || s->stage != JPEG_AT_ROWS) return status;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    jpeg_push_sync_in(d, s);
    uint32_t got = 0;
    while (got < call->count && clanes_jpeg_reader_row(&s->r, call->rows + (size_t)got * call->bytes_per_row)) {
        got++; /* a suspension ends the loop: more input first */
    }
    jpeg_push_sync_out(d, s);
    call->delivered = got;
    return CLANES_OK;
}

static int32_t jpeg_push_preview(clanes_incremental *d, clanes_incremental_call *call) {
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    if (setjmp(s->r.error.jump)) {
        return s->r.error.status;
    }
    jpeg_push_sync_in(d, s);
    jpeg_start_output(&s->r.cinfo, (int)d->state.previews_ready);
    for (uint32_t y = 0; y < d->state.height; y++) {
        if (!clanes_jpeg_reader_row(&s->r, call->rows + (size_t)y * call->bytes_per_row)) {
            clanes_set_message(d->message, d->capacity, "JPEG preview stalled");
            return CLANES_ERR_CORRUPT;
        }
    }
    jpeg_finish_output(&s->r.cinfo);
    jpeg_push_sync_out(d, s);
    return CLANES_OK;
}

static size_t jpeg_push_held(const clanes_incremental *d) {
    const jpeg_push_state *s = (const jpeg_push_state *)d->codec;
    if (s == NULL || !s->r.created || !d->state.header_ready) return 0;
    size_t held = d->row_bytes * 16 + (s->r.cinfo.progressive_mode
        ? (size_t)s->r.cinfo.image_width * s->r.cinfo.image_height * (size_t)s->r.cinfo.num_components * 2 : 0);
    return held + (s->r.cmyk ? d->row_bytes : 0);
}

static void jpeg_push_close(clanes_incremental *d) {
    jpeg_push_state *s = (jpeg_push_state *)d->codec;
    if (s == NULL) return;
    clanes_jpeg_reader_end(&s->r);
    free(s);
    d->codec = NULL;
}

const clanes_push_part clanes_jpeg_push = {jpeg_push_start, jpeg_push_advance, jpeg_push_read, jpeg_push_preview,
                                           jpeg_push_held, jpeg_push_close, 1};
