/*
 * Incremental decoding (see clanes_incremental.h). The decoder lives on the heap, so libpng's and libjpeg's state
 * stays valid across their longjmps; every entry point that calls into a codec sets its own setjmp.
 */
#include "clanes_codecs.h"
#include "incremental_internal.h"
#include "codecs_internal.h"
#include "jpeg_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>

/* Bytes handed to png_process_data at a time: the rows one piece inflates to stay few (zlib: at most ~1 MB). */
#define INCREMENTAL_PNG_PIECE 1024

enum { JPEG_AT_HEADER, JPEG_AT_START, JPEG_AT_SCANS, JPEG_AT_OUTPUT, JPEG_AT_ROWS };

struct clanes_incremental {
    clanes_incremental_options options;
    clanes_incremental_state state;
    char *message;
    size_t capacity;
    int32_t failure;      /* a status set before a longjmp (CLANES_OK: corrupt data) */
    int end_of_input;
    /* the unconsumed input: input[position ..< size] */
    uint8_t *input;
    size_t position;
    size_t size;
    size_t input_capacity;
    /* PNG */
    png_structp png;
    png_infop info;
    int interlaced;
    size_t row_bytes;
    uint8_t *whole;       /* an interlaced PNG's image */
    uint8_t *pending;     /* rows inflated ahead of the reader: pending_first ..< pending_count */
    uint32_t pending_first;
    uint32_t pending_count;
    uint32_t pending_capacity;
    /* JPEG */
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context error;
    struct jpeg_progress_mgr progress;
    struct jpeg_source_mgr source;
    int jpeg_created;
    int jpeg_stage;
    int buffered;
    int cmyk;
    uint8_t *cmyk_row;
    size_t skip;          /* bytes libjpeg asked to skip that had not arrived yet */
};

static void use_message(clanes_incremental *d, clanes_incremental_call *call) {
    d->message = call->message;
    d->capacity = call->message_capacity;
    d->error.message = call->message;
    d->error.capacity = call->message_capacity;
}

static size_t held_bytes(const clanes_incremental *d) {
    size_t held = d->input_capacity + (size_t)d->pending_capacity * d->row_bytes;
    if (d->whole != NULL) {
        held += d->row_bytes * d->state.height;
    }
    if (d->jpeg_created && d->state.header_ready) {
        held += d->row_bytes * 16 + (d->cinfo.progressive_mode
            ? (size_t)d->cinfo.image_width * d->cinfo.image_height * (size_t)d->cinfo.num_components * 2 : 0);
        if (d->cmyk) held += d->row_bytes;
    }
    return held;
}

static int32_t finish_call(clanes_incremental *d, clanes_incremental_call *call, int32_t status) {
    d->state.held_bytes = held_bytes(d);
    call->state = d->state;
    return status;
}

/* Appends bytes after dropping the consumed ones; 0 when out of memory. */
static int append_input(clanes_incremental *d, const uint8_t *data, size_t size) {
    if (d->position > 0) {
        memmove(d->input, d->input + d->position, d->size - d->position);
        d->size -= d->position;
        d->position = 0;
    }
    if (size == 0) {
        return 1;
    }
    if (d->size + size > d->input_capacity) {
        size_t capacity = d->input_capacity < 4096 ? 4096 : d->input_capacity;
        while (capacity < d->size + size) {
            capacity *= 2;
        }
        uint8_t *grown = (uint8_t *)realloc(d->input, capacity);
        if (grown == NULL) {
            return 0;
        }
        d->input = grown;
        d->input_capacity = capacity;
    }
    memcpy(d->input + d->size, data, size);
    d->size += size;
    return 1;
}

/* ---------- PNG ---------- */

static void png_failed(png_structp png, png_const_charp text) {
    clanes_incremental *d = (clanes_incremental *)png_get_error_ptr(png);
    if (d->failure != CLANES_OK) png_longjmp(png, 1); /* its message is set */
    clanes_png_raise(png, d->message, d->capacity, "PNG", text);
}

static void png_header(png_structp png, png_infop info) {
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if ((uint64_t)width * height > d->options.max_pixels) {
        d->failure = CLANES_ERR_TOO_LARGE;
        clanes_set_message(d->message, d->capacity, "PNG of %ux%u is over the limit of %llu pixels", width, height,
                           (unsigned long long)d->options.max_pixels);
        png_error(png, "too large");
    }
    int opaque = 0;
    (void)clanes_png_set_layout(png, info, 4, 1, &opaque); /* four channels: every PNG converts */
    d->state.opaque = opaque;
    d->interlaced = png_set_interlace_handling(png) > 1;
    png_read_update_info(png, info);
    d->row_bytes = png_get_rowbytes(png, info);
    if (d->row_bytes != (size_t)width * 4) {
        d->failure = CLANES_ERR_UNSUPPORTED;
        clanes_set_message(d->message, d->capacity, "PNG transformation produced %zu bytes per row", d->row_bytes);
        png_error(png, "unsupported");
    }
    if (d->interlaced) {
        d->whole = (uint8_t *)calloc(height, d->row_bytes);
        if (d->whole == NULL) {
            d->failure = CLANES_ERR_NO_MEMORY;
            clanes_set_message(d->message, d->capacity, "out of memory for an interlaced PNG");
            png_error(png, "out of memory");
        }
    }
    d->state.width = width;
    d->state.height = height;
    d->state.progressive = d->interlaced;
    d->state.header_ready = 1;
}

static void png_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    if (d->interlaced && (uint32_t)pass > d->state.previews_ready && pass < 7) {
        d->state.previews_ready = (uint32_t)pass; /* passes 0 ..< pass are complete */
    }
    if (row == NULL || number >= d->state.height) {
        return;
    }
    if (d->interlaced) {
        png_progressive_combine_row(png, d->whole + (size_t)number * d->row_bytes, row);
        return;
    }
    if (d->pending_first + d->pending_count == d->pending_capacity) {
        if (d->pending_first > 0) {
            memmove(d->pending, d->pending + (size_t)d->pending_first * d->row_bytes,
                    (size_t)d->pending_count * d->row_bytes);
            d->pending_first = 0;
        } else {
            uint32_t capacity = d->pending_capacity < 8 ? 8 : d->pending_capacity * 2;
            uint8_t *grown = (uint8_t *)realloc(d->pending, (size_t)capacity * d->row_bytes);
            if (grown == NULL) {
                d->failure = CLANES_ERR_NO_MEMORY;
                clanes_set_message(d->message, d->capacity, "out of memory for PNG rows");
                png_error(png, "out of memory");
            }
            d->pending = grown;
            d->pending_capacity = capacity;
        }
    }
    memcpy(d->pending + (size_t)(d->pending_first + d->pending_count) * d->row_bytes, row, d->row_bytes);
    d->pending_count++;
}

static void png_ended(png_structp png, png_infop info) {
    (void)info;
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    d->state.input_complete = 1;
    d->state.previews_ready = 0;
}

/* Hands input to libpng piece by piece until `rows` rows wait (all input for the header and interlaced passes). */
static int32_t png_pump(clanes_incremental *d, uint32_t rows) {
    if (setjmp(png_jmpbuf(d->png))) {
        return d->failure != CLANES_OK ? d->failure : CLANES_ERR_CORRUPT;
    }
    while (d->position < d->size && !d->state.input_complete
           && (!d->state.header_ready || d->interlaced || d->pending_count < rows)) {
        size_t piece = d->size - d->position;
        if (piece > INCREMENTAL_PNG_PIECE) piece = INCREMENTAL_PNG_PIECE;
        png_process_data(d->png, d->info, d->input + d->position, piece);
        d->position += piece;
    }
    if (d->state.input_complete) {
        d->position = d->size; /* what follows IEND is not the image's */
    }
    return CLANES_OK;
}

static int32_t png_read(clanes_incremental *d, clanes_incremental_call *call) {
    int32_t status = png_pump(d, call->count);
    if (status != CLANES_OK) return status;
    uint32_t got = 0;
    if (d->interlaced) {
        if (!d->state.input_complete) return CLANES_OK;
        for (; got < call->count; got++) {
            memcpy(call->rows + (size_t)got * call->bytes_per_row,
                   d->whole + (size_t)(d->state.rows_read + got) * d->row_bytes, d->row_bytes);
        }
    } else {
        for (; got < call->count && d->pending_count > 0; got++) {
            memcpy(call->rows + (size_t)got * call->bytes_per_row,
                   d->pending + (size_t)d->pending_first * d->row_bytes, d->row_bytes);
            d->pending_first++;
            d->pending_count--;
        }
        if (d->pending_count == 0) d->pending_first = 0;
    }
    call->delivered = got;
    return CLANES_OK;
}

/* The pixels known after `passes` Adam7 passes, each filling the block it stands for. */
static void png_preview(clanes_incremental *d, clanes_incremental_call *call) {
    static const uint32_t masks[7][2] = { {7, 7}, {7, 7}, {3, 7}, {3, 3}, {1, 3}, {1, 1}, {0, 1} };
    uint32_t pass = d->state.previews_ready > 6 ? 6 : d->state.previews_ready;
    uint32_t mx = masks[pass][0], my = masks[pass][1];
    for (uint32_t y = 0; y < d->state.height; y++) {
        const uint32_t *source = (const uint32_t *)(const void *)(d->whole + (size_t)(y & ~my) * d->row_bytes);
        uint8_t *out = call->rows + (size_t)y * call->bytes_per_row;
        for (uint32_t x = 0; x < d->state.width; x++) {
            memcpy(out + (size_t)x * 4, &source[x & ~mx], 4);
        }
    }
}

/* ---------- JPEG ---------- */

static boolean jpeg_source_fill(j_decompress_ptr cinfo) {
    clanes_incremental *d = (clanes_incremental *)cinfo->client_data;
    if (!d->end_of_input) {
        return FALSE; /* suspend: the caller feeds more and calls again */
    }
    WARNMS(cinfo, JWRN_JPEG_EOF); /* the installed emit_message makes this a truncation error */
    static const uint8_t eoi[2] = { 0xFF, JPEG_EOI };
    d->source.next_input_byte = eoi;
    d->source.bytes_in_buffer = 2;
    return TRUE;
}

static void jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    clanes_incremental *d = (clanes_incremental *)cinfo->client_data;
    if (count <= 0) return;
    size_t skip = (size_t)count;
    if (skip <= d->source.bytes_in_buffer) {
        d->source.next_input_byte += skip;
        d->source.bytes_in_buffer -= skip;
        return;
    }
    d->skip += skip - d->source.bytes_in_buffer;
    d->source.next_input_byte += d->source.bytes_in_buffer;
    d->source.bytes_in_buffer = 0;
}

/* Points libjpeg's source at the unconsumed input (after any skip it still owes). */
static void jpeg_sync_in(clanes_incremental *d) {
    size_t skip = d->skip < d->size - d->position ? d->skip : d->size - d->position;
    d->position += skip;
    d->skip -= skip;
    d->source.next_input_byte = d->input + d->position;
    d->source.bytes_in_buffer = d->size - d->position;
}

static int32_t jpeg_header(clanes_incremental *d) {
    int read = jpeg_read_header(&d->cinfo, TRUE);
    if (read == JPEG_SUSPENDED) return CLANES_OK;
    if (read != JPEG_HEADER_OK) {
        clanes_set_message(d->message, d->capacity, "JPEG holds tables but no image");
        return CLANES_ERR_CORRUPT;
    }
    if ((uint64_t)d->cinfo.image_width * d->cinfo.image_height > d->options.max_pixels) {
        clanes_set_message(d->message, d->capacity, "JPEG of %ux%u is over the limit of %llu pixels",
                           d->cinfo.image_width, d->cinfo.image_height, (unsigned long long)d->options.max_pixels);
        return CLANES_ERR_TOO_LARGE;
    }
    int32_t output = clanes_jpeg_choose_rgba_output(&d->cinfo, &d->cmyk, d->message, d->capacity);
    if (output != CLANES_OK) {
        return output;
    }
    d->cinfo.dct_method = JDCT_ISLOW;
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = d->options.scale_denom > 1 ? (unsigned int)d->options.scale_denom : 1;
    jpeg_calc_output_dimensions(&d->cinfo);
    d->buffered = d->cinfo.progressive_mode && d->options.previews;
    d->cinfo.buffered_image = d->buffered ? TRUE : FALSE;
    d->state.width = d->cinfo.output_width;
    d->state.height = d->cinfo.output_height;
    d->state.opaque = 1;
    d->state.progressive = d->cinfo.progressive_mode ? 1 : 0;
    d->row_bytes = (size_t)d->state.width * 4;
    d->state.header_ready = 1;
    d->jpeg_stage = JPEG_AT_START;
    return CLANES_OK;
}

/* Decodes as far as the input allows without output: header, start, and a buffered file's scans. */
static int32_t jpeg_advance(clanes_incremental *d) {
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    jpeg_sync_in(d);
    int32_t status = CLANES_OK;
    if (d->jpeg_stage == JPEG_AT_HEADER) {
        status = jpeg_header(d);
    }
    if (status == CLANES_OK && d->jpeg_stage == JPEG_AT_START && jpeg_start_decompress(&d->cinfo)) {
        if (d->cmyk && d->cmyk_row == NULL) {
            d->cmyk_row = (uint8_t *)malloc(d->row_bytes);
            if (d->cmyk_row == NULL) {
                clanes_set_message(d->message, d->capacity, "out of memory for a CMYK row");
                status = CLANES_ERR_NO_MEMORY;
            }
        }
        d->jpeg_stage = d->buffered ? JPEG_AT_SCANS : JPEG_AT_ROWS;
    }
    while (status == CLANES_OK && d->jpeg_stage == JPEG_AT_SCANS) {
        int consumed = jpeg_consume_input(&d->cinfo);
        if (consumed == JPEG_REACHED_EOI) {
            d->jpeg_stage = JPEG_AT_OUTPUT;
            d->state.input_complete = 1;
            d->state.previews_ready = 0;
        } else {
            d->state.previews_ready = d->cinfo.input_scan_number > 1 ? (uint32_t)d->cinfo.input_scan_number - 1 : 0;
            if (consumed == JPEG_SUSPENDED) break;
        }
    }
    if (status == CLANES_OK && d->jpeg_stage == JPEG_AT_OUTPUT
        && jpeg_start_output(&d->cinfo, d->cinfo.input_scan_number)) {
        d->jpeg_stage = JPEG_AT_ROWS;
    }
    d->position = d->size - d->source.bytes_in_buffer;
    return status;
}

static void jpeg_deliver_row(clanes_incremental *d, uint8_t *row) {
    if (d->cmyk) clanes_cmyk_to_rgba(d->cmyk_row, row, d->state.width, d->cinfo.saw_Adobe_marker);
}

static int32_t jpeg_read(clanes_incremental *d, clanes_incremental_call *call) {
    int32_t status = jpeg_advance(d);
    if (status != CLANES_OK || d->jpeg_stage != JPEG_AT_ROWS) return status;
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    jpeg_sync_in(d);
    uint32_t got = 0;
    while (got < call->count) {
        uint8_t *destination = call->rows + (size_t)got * call->bytes_per_row;
        JSAMPROW row = d->cmyk ? d->cmyk_row : destination;
        if (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) break; /* suspended: more input first */
        jpeg_deliver_row(d, destination);
        got++;
    }
    d->position = d->size - d->source.bytes_in_buffer;
    call->delivered = got;
    return CLANES_OK;
}

static int32_t jpeg_preview(clanes_incremental *d, clanes_incremental_call *call) {
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    jpeg_sync_in(d);
    jpeg_start_output(&d->cinfo, (int)d->state.previews_ready);
    for (uint32_t y = 0; y < d->state.height; y++) {
        uint8_t *destination = call->rows + (size_t)y * call->bytes_per_row;
        JSAMPROW row = d->cmyk ? d->cmyk_row : destination;
        if (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) {
            clanes_set_message(d->message, d->capacity, "JPEG preview stalled");
            return CLANES_ERR_CORRUPT;
        }
        jpeg_deliver_row(d, destination);
    }
    jpeg_finish_output(&d->cinfo);
    d->position = d->size - d->source.bytes_in_buffer;
    return CLANES_OK;
}

/* ---------- entry points ---------- */

int32_t clanes_incremental_create(const clanes_incremental_options *options, clanes_incremental **decoder,
                                  char *message, size_t message_capacity) {
    if (options == NULL || decoder == NULL
        || (options->format != CLANES_FORMAT_PNG && options->format != CLANES_FORMAT_JPEG)) {
        clanes_set_message(message, message_capacity, "an incremental decoder reads PNG or JPEG");
        return CLANES_ERR_ARGUMENT;
    }
    int32_t scale = options->scale_denom;
    if (scale > 1 && (options->format != CLANES_FORMAT_JPEG || (scale != 2 && scale != 4 && scale != 8))) {
        clanes_set_message(message, message_capacity, "scale 1/%d is not available for this format", scale);
        return CLANES_ERR_ARGUMENT;
    }
    clanes_incremental *d = (clanes_incremental *)calloc(1, sizeof(clanes_incremental));
    *decoder = d;
    if (d == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating a decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    d->options = *options;
    d->message = message;
    d->capacity = message_capacity;
    if (options->format == CLANES_FORMAT_PNG) {
        d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, png_failed, clanes_png_ignore_warning);
        d->info = d->png ? png_create_info_struct(d->png) : NULL;
        if (d->png == NULL || d->info == NULL) {
            clanes_set_message(message, message_capacity, "out of memory creating the PNG decoder");
            return CLANES_ERR_NO_MEMORY;
        }
        clanes_png_limit_ancillary(d->png);
        png_set_progressive_read_fn(d->png, d, png_header, png_row, png_ended);
        return CLANES_OK;
    }
    clanes_jpeg_install_errors(&d->error, message, message_capacity);
    d->cinfo.err = &d->error.manager;
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    clanes_jpeg_create_limited(&d->cinfo, &d->progress);
    d->jpeg_created = 1;
    d->cinfo.client_data = d;
    clanes_jpeg_use_source(&d->cinfo, &d->source, jpeg_source_fill, jpeg_source_skip);
    return CLANES_OK;
}

int32_t clanes_incremental_feed(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || (call->data == NULL && call->size > 0)) {
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    if (!append_input(d, call->data, call->size)) {
        clanes_set_message(call->message, call->message_capacity, "out of memory for %zu bytes of input", call->size);
        return finish_call(d, call, CLANES_ERR_NO_MEMORY);
    }
    d->end_of_input = d->end_of_input || call->end_of_input;
    int32_t status = d->png != NULL ? png_pump(d, 0) : jpeg_advance(d);
    if (status == CLANES_OK && d->end_of_input && d->position >= d->size && d->png != NULL
        && (!d->state.header_ready || (d->interlaced && !d->state.input_complete))) {
        clanes_set_message(call->message, call->message_capacity, "PNG: unexpected end of data");
        status = CLANES_ERR_TRUNCATED;
    }
    return finish_call(d, call, status);
}

int32_t clanes_incremental_read(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || call->rows == NULL || !d->state.header_ready
        || call->bytes_per_row < d->row_bytes || call->count > d->state.height - d->state.rows_read) {
        if (call != NULL) {
            clanes_set_message(call->message, call->message_capacity, "bad rows for an incremental decoder");
        }
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    call->delivered = 0;
    int32_t status = d->png != NULL ? png_read(d, call) : jpeg_read(d, call);
    d->state.rows_read += call->delivered;
    if (status == CLANES_OK && call->delivered < call->count && d->end_of_input && d->position >= d->size
        && d->png != NULL) {
        clanes_set_message(call->message, call->message_capacity, "PNG: unexpected end of data");
        status = CLANES_ERR_TRUNCATED;
    }
    return finish_call(d, call, status);
}

int32_t clanes_incremental_preview(clanes_incremental *d, clanes_incremental_call *call) {
    if (d == NULL || call == NULL || call->rows == NULL || d->state.previews_ready == 0 || d->state.rows_read > 0
        || call->bytes_per_row < d->row_bytes) {
        if (call != NULL) {
            clanes_set_message(call->message, call->message_capacity, "no preview to render");
        }
        return CLANES_ERR_ARGUMENT;
    }
    use_message(d, call);
    int32_t status = CLANES_OK;
    if (d->png != NULL) {
        png_preview(d, call);
    } else {
        status = jpeg_preview(d, call);
    }
    return finish_call(d, call, status);
}

void clanes_incremental_destroy(clanes_incremental *d) {
    if (d == NULL) return;
    if (d->png != NULL) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    if (d->jpeg_created) jpeg_destroy_decompress(&d->cinfo);
    free(d->input);
    free(d->whole);
    free(d->pending);
    free(d->cmyk_row);
    free(d);
}
