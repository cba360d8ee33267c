/*
 * Row decoding (see clanes_rows.h). All libpng/libjpeg state lives in the heap-allocated decoder, so
 * it stays valid after a longjmp; every entry point that calls into a codec sets its own setjmp.
 */
#include "clanes_codecs.h"
#include "rows_internal.h"
#include "codecs_internal.h"
#include "jpeg_internal.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jerror.h>

#define ROWS_READ_CHUNK 65536

struct clanes_row_decoder {
    int32_t format;
    const uint8_t *data; /* memory input, or NULL */
    int fd;              /* file input, or -1 */
    size_t size;
    size_t offset;
    int truncated;
    int io_error;
    char *message;       /* the current call's message buffer */
    size_t capacity;
    clanes_row_layout layout;
    uint32_t next_row;
    /* PNG */
    png_structp png;
    png_infop info;
    uint8_t *whole; /* an interlaced PNG's pixels */
    png_bytep *pointers; /* its row pointers */
    /* JPEG */
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context error;
    struct jpeg_progress_mgr progress;
    struct jpeg_source_mgr source;
    int jpeg_created;
    int cmyk;
    uint8_t *cmyk_row;
    uint8_t *chunk; /* the file reader's buffer */
};

/* Reads up to `length` bytes of the input at the decoder's offset; returns how many (0 at the end or on error). */
static size_t rows_read_input(clanes_row_decoder *d, uint8_t *out, size_t length) {
    if (d->offset >= d->size) {
        return 0;
    }
    if (length > d->size - d->offset) {
        length = d->size - d->offset;
    }
    if (d->data != NULL) {
        memcpy(out, d->data + d->offset, length);
        d->offset += length;
        return length;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(d->fd, out + done, length - done, (off_t)(d->offset + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            d->io_error = got < 0;
            break;
        }
        done += (size_t)got;
    }
    d->offset += done;
    return done;
}

/* Bytes of one row handed out. */
static size_t rows_row_bytes(const clanes_row_decoder *d) {
    return (size_t)d->layout.width * (size_t)d->layout.channels * (size_t)d->layout.bytes_per_sample;
}

/* ---------- PNG ---------- */

static void rows_png_error(png_structp png, png_const_charp text) {
    clanes_row_decoder *d = (clanes_row_decoder *)png_get_error_ptr(png);
    clanes_png_raise(png, d->message, d->capacity, "PNG", text);
}

static void rows_png_read(png_structp png, png_bytep out, size_t length) {
    clanes_row_decoder *d = (clanes_row_decoder *)png_get_io_ptr(png);
    if (rows_read_input(d, out, length) != length) {
        d->truncated = !d->io_error;
        png_error(png, d->io_error ? "cannot read the file" : "unexpected end of data");
    }
}

static int32_t rows_png_open(clanes_row_decoder *d, int32_t channels, int32_t bytes_per_sample) {
    if (setjmp(png_jmpbuf(d->png))) {
        return d->truncated ? CLANES_ERR_TRUNCATED : d->io_error ? CLANES_ERR_IO : CLANES_ERR_CORRUPT;
    }
    png_set_read_fn(d->png, d, rows_png_read);
    clanes_png_limit_ancillary(d->png);
    png_read_info(d->png, d->info);
    d->layout.width = png_get_image_width(d->png, d->info);
    d->layout.height = png_get_image_height(d->png, d->info);
    int deep = png_get_bit_depth(d->png, d->info) == 16; /* before the transforms update `info` */
    int opaque = 0;
    if (!clanes_png_set_layout(d->png, d->info, channels, bytes_per_sample, &opaque)) {
        clanes_set_message(d->message, d->capacity, "a colour PNG cannot be decoded to %d channel(s)", channels);
        return CLANES_ERR_ARGUMENT;
    }
    d->layout.opaque = opaque || !(channels == 2 || channels == 4);
    d->layout.channels = channels;
    d->layout.bytes_per_sample = bytes_per_sample;
    int interlaced = png_set_interlace_handling(d->png) > 1;
    png_read_update_info(d->png, d->info);
    size_t row_bytes = png_get_rowbytes(d->png, d->info);
    if (row_bytes != (size_t)d->layout.width * (size_t)channels * (size_t)bytes_per_sample) {
        clanes_set_message(d->message, d->capacity, "PNG transformation produced %zu bytes per row", row_bytes);
        return CLANES_ERR_UNSUPPORTED;
    }
    d->layout.whole_image = interlaced;
    /* libpng's row and previous row are as wide as the widest pixel on the way: 64 bits for 16-bit input. */
    size_t widest = deep && row_bytes < (size_t)d->layout.width * 8 ? (size_t)d->layout.width * 8 : row_bytes;
    d->layout.held_bytes = interlaced ? row_bytes * d->layout.height : widest * 2;
    return CLANES_OK;
}

static int32_t rows_png_read_rows(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count) {
    if (setjmp(png_jmpbuf(d->png))) {
        return d->truncated ? CLANES_ERR_TRUNCATED : d->io_error ? CLANES_ERR_IO : CLANES_ERR_CORRUPT;
    }
    size_t row_bytes = rows_row_bytes(d);
    if (d->layout.whole_image) {
        if (d->whole == NULL) {
            d->whole = (uint8_t *)malloc(row_bytes * d->layout.height);
            d->pointers = (png_bytep *)malloc(sizeof(png_bytep) * d->layout.height);
            png_bytep *pointers = d->pointers;
            if (d->whole == NULL || pointers == NULL) {
                clanes_set_message(d->message, d->capacity, "out of memory for an interlaced PNG");
                return CLANES_ERR_NO_MEMORY;
            }
            for (uint32_t y = 0; y < d->layout.height; y++) {
                pointers[y] = d->whole + (size_t)y * row_bytes;
            }
            png_read_image(d->png, pointers);
        }
        for (uint32_t i = 0; i < count; i++) {
            memcpy(rows + (size_t)i * bytes_per_row, d->whole + (size_t)(d->next_row + i) * row_bytes, row_bytes);
        }
        return CLANES_OK;
    }
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(d->png, rows + (size_t)i * bytes_per_row, NULL);
    }
    return CLANES_OK;
}

/* ---------- JPEG ---------- */

static boolean rows_jpeg_source_fill(j_decompress_ptr cinfo) {
    clanes_row_decoder *d = (clanes_row_decoder *)cinfo->client_data;
    size_t got = rows_read_input(d, d->chunk, ROWS_READ_CHUNK);
    if (got == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF); /* our emit_message makes it a truncation error */
        d->chunk[0] = 0xFF;           /* as libjpeg's own sources do: a fake EOI */
        d->chunk[1] = JPEG_EOI;
        got = 2;
    }
    d->source.next_input_byte = d->chunk;
    d->source.bytes_in_buffer = got;
    return TRUE;
}

static void rows_jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    clanes_row_decoder *d = (clanes_row_decoder *)cinfo->client_data;
    if (count <= 0) {
        return;
    }
    size_t skip = (size_t)count;
    if (skip <= d->source.bytes_in_buffer) {
        d->source.next_input_byte += skip;
        d->source.bytes_in_buffer -= skip;
        return;
    }
    skip -= d->source.bytes_in_buffer;
    d->source.bytes_in_buffer = 0;
    d->offset = skip > d->size - d->offset ? d->size : d->offset + skip;
}

static int32_t rows_jpeg_open(clanes_row_decoder *d, int32_t scale_denom) {
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    clanes_jpeg_create_limited(&d->cinfo, &d->progress);
    d->jpeg_created = 1;
    d->cinfo.client_data = d;
    if (d->data != NULL) {
        jpeg_mem_src(&d->cinfo, d->data, (unsigned long)d->size);
    } else {
        d->chunk = (uint8_t *)malloc(ROWS_READ_CHUNK);
        if (d->chunk == NULL) {
            clanes_set_message(d->message, d->capacity, "out of memory for a read buffer");
            return CLANES_ERR_NO_MEMORY;
        }
        clanes_jpeg_use_source(&d->cinfo, &d->source, rows_jpeg_source_fill, rows_jpeg_source_skip);
    }
    if (jpeg_read_header(&d->cinfo, TRUE) != JPEG_HEADER_OK) {
        clanes_set_message(d->message, d->capacity, "JPEG holds tables but no image");
        return CLANES_ERR_CORRUPT;
    }
    int32_t output = clanes_jpeg_choose_rgba_output(&d->cinfo, &d->cmyk, d->message, d->capacity);
    if (output != CLANES_OK) {
        return output;
    }
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = (unsigned int)scale_denom;
    d->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&d->cinfo);
    d->layout.width = d->cinfo.output_width;
    d->layout.height = d->cinfo.output_height;
    d->layout.channels = 4;
    d->layout.bytes_per_sample = 1;
    d->layout.whole_image = 0;
    d->layout.opaque = 1;
    size_t row = (size_t)d->layout.width * 4;
    /* The decoder's strip (one iMCU row, up to 16 output rows) and, progressive, its coefficients. */
    d->layout.held_bytes = row * 16 + (d->cinfo.progressive_mode
        ? (size_t)d->cinfo.image_width * d->cinfo.image_height * (size_t)d->cinfo.num_components * 2 : 0);
    if (d->cmyk) {
        d->cmyk_row = (uint8_t *)malloc(row);
        if (d->cmyk_row == NULL) {
            clanes_set_message(d->message, d->capacity, "out of memory for a CMYK row");
            return CLANES_ERR_NO_MEMORY;
        }
        d->layout.held_bytes += row;
    }
    return CLANES_OK;
}

static int32_t rows_jpeg_read_rows(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count) {
    if (setjmp(d->error.jump)) {
        return d->error.status;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *destination = rows + (size_t)i * bytes_per_row;
        JSAMPROW row = d->cmyk ? d->cmyk_row : destination;
        if (jpeg_read_scanlines(&d->cinfo, &row, 1) != 1) {
            clanes_set_message(d->message, d->capacity, "JPEG decoder stalled");
            return CLANES_ERR_CORRUPT;
        }
        if (d->cmyk) {
            clanes_cmyk_to_rgba(d->cmyk_row, destination, d->layout.width, d->cinfo.saw_Adobe_marker);
        }
    }
    return CLANES_OK;
}

/* ---------- entry points ---------- */

int32_t clanes_row_decoder_open(const clanes_row_request *request, clanes_row_decoder **decoder,
                                clanes_row_layout *layout, char *message, size_t message_capacity) {
    if (request == NULL || decoder == NULL || layout == NULL || (request->data == NULL) == (request->fd < 0)) {
        clanes_set_message(message, message_capacity, "a row decoder needs memory or a descriptor, not both");
        return CLANES_ERR_ARGUMENT;
    }
    *decoder = NULL;
    int32_t format = request->format;
    int32_t scale_denom = request->scale_denom == 0 ? 1 : request->scale_denom;
    int32_t channels = request->channels == 0 ? 4 : request->channels;
    int32_t bytes_per_sample = request->bytes_per_sample == 0 ? 1 : request->bytes_per_sample;
    if (scale_denom != 1 && (format != CLANES_FORMAT_JPEG || (scale_denom != 2 && scale_denom != 4 && scale_denom != 8))) {
        clanes_set_message(message, message_capacity, "scale 1/%d is not available for this format", scale_denom);
        return CLANES_ERR_ARGUMENT;
    }
    if ((channels != 1 && channels != 2 && channels != 4) || (bytes_per_sample != 1 && bytes_per_sample != 2)
        || (format == CLANES_FORMAT_JPEG && (channels != 4 || bytes_per_sample != 1))) {
        clanes_set_message(message, message_capacity, "rows of %d channel(s) of %d byte(s) are not available"
                           " for this format", channels, bytes_per_sample);
        return CLANES_ERR_ARGUMENT;
    }
    clanes_row_decoder *d = (clanes_row_decoder *)calloc(1, sizeof(clanes_row_decoder));
    if (d == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating a row decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    *decoder = d;
    d->format = format;
    d->data = request->data;
    d->fd = request->fd;
    d->size = request->size;
    d->message = message;
    d->capacity = message_capacity;
    int32_t status;
    if (format == CLANES_FORMAT_PNG) {
        d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, rows_png_error, clanes_png_ignore_warning);
        d->info = d->png ? png_create_info_struct(d->png) : NULL;
        if (d->png == NULL || d->info == NULL) {
            clanes_set_message(message, message_capacity, "out of memory creating the PNG decoder");
            return CLANES_ERR_NO_MEMORY;
        }
        status = rows_png_open(d, channels, bytes_per_sample);
    } else if (format == CLANES_FORMAT_JPEG) {
        clanes_jpeg_install_errors(&d->error, message, message_capacity);
        d->cinfo.err = &d->error.manager;
        status = rows_jpeg_open(d, scale_denom);
    } else {
        clanes_set_message(message, message_capacity, "not a PNG or JPEG");
        status = CLANES_ERR_UNSUPPORTED;
    }
    if (status == CLANES_OK && (d->layout.width == 0 || d->layout.height == 0)) {
        clanes_set_message(message, message_capacity, "empty image");
        status = CLANES_ERR_CORRUPT;
    }
    *layout = d->layout;
    return status;
}

int32_t clanes_row_decoder_read(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count,
                                char *message, size_t message_capacity) {
    if (d == NULL || rows == NULL || bytes_per_row < rows_row_bytes(d)
        || count > d->layout.height - d->next_row) {
        clanes_set_message(message, message_capacity, "bad rows for a row decoder (%u of %u left)",
                           d ? d->layout.height - d->next_row : 0, d ? d->layout.height : 0);
        return CLANES_ERR_ARGUMENT;
    }
    d->message = message;
    d->capacity = message_capacity;
    d->error.message = message;
    d->error.capacity = message_capacity;
    int32_t status = d->format == CLANES_FORMAT_PNG ? rows_png_read_rows(d, rows, bytes_per_row, count)
                                                    : rows_jpeg_read_rows(d, rows, bytes_per_row, count);
    if (status == CLANES_OK) {
        d->next_row += count;
    }
    return status;
}

uint32_t clanes_row_decoder_rows_read(const clanes_row_decoder *d) {
    return d ? d->next_row : 0;
}

void clanes_row_decoder_destroy(clanes_row_decoder *d) {
    if (d == NULL) {
        return;
    }
    if (d->png != NULL) {
        png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    }
    if (d->jpeg_created) {
        jpeg_destroy_decompress(&d->cinfo);
    }
    free(d->whole);
    free(d->pointers);
    free(d->cmyk_row);
    free(d->chunk);
    free(d);
}
