/*
 * The PNG part of the row encoder (encoder.c): libpng fed a row at a time. Each function that calls libpng sets its
 * own setjmp, so a longjmp never leaves this file; every value read after one lives in the heap-allocated encoder.
 */
#include "encoder_internal.h"

#include <png.h>
#include <stdlib.h>

typedef struct png_encoder_state {
    png_structp png;
    png_infop info;
    png_textp text; /* the options' text as libpng takes it (libpng copies it; freed with the state) */
} png_encoder_state;

int clanes_png_filter_mask(int32_t filters) {
    int mask = 0;
    if (filters & CLANES_PNG_FILTER_NONE) mask |= PNG_FILTER_NONE;
    if (filters & CLANES_PNG_FILTER_SUB) mask |= PNG_FILTER_SUB;
    if (filters & CLANES_PNG_FILTER_UP) mask |= PNG_FILTER_UP;
    if (filters & CLANES_PNG_FILTER_AVG) mask |= PNG_FILTER_AVG;
    if (filters & CLANES_PNG_FILTER_PAETH) mask |= PNG_FILTER_PAETH;
    return mask;
}

int clanes_png_colour_type(int32_t channels, int opaque) {
    if (channels <= 2) {
        return (channels == 1 || opaque) ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_GRAY_ALPHA;
    }
    return opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
}

static void png_encoder_error(png_structp png, png_const_charp text) {
    clanes_encoder *e = (clanes_encoder *)png_get_error_ptr(png);
    clanes_png_raise(png, e->message, e->capacity, "PNG encoder", text);
}

static void png_encoder_write(png_structp png, png_bytep bytes, size_t length) {
    clanes_encoder *e = (clanes_encoder *)png_get_io_ptr(png);
    if (!clanes_encoder_emit(e, bytes, length)) {
        png_error(png, e->out_of_memory ? "out of memory" : "write failed");
    }
}

static void png_encoder_flush(png_structp png) {
    (void)png;
}

/* Whether `s` is ASCII text a tEXt chunk may hold: a key 1...79 printable bytes, a value printable bytes, tabs and
 * newlines. */
static int png_text_is_ascii(const char *s, int is_key) {
    if (s == NULL) {
        return 0;
    }
    size_t n = 0;
    for (; s[n] != 0; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c > 126 || (c < 32 && (is_key || (c != '\n' && c != '\t')))) {
            return 0;
        }
    }
    return !is_key || (n >= 1 && n <= 79);
}

static int32_t png_encoder_check(const clanes_encode_options *o, char *message, size_t capacity) {
    if (o->compression_level < 0 || o->compression_level > 9) {
        clanes_set_message(message, capacity, "bad compression level %d", o->compression_level);
        return CLANES_ERR_ARGUMENT;
    }
    if ((o->filters & CLANES_PNG_FILTER_ALL) == 0 || (o->filters & ~CLANES_PNG_FILTER_ALL) != 0) {
        clanes_set_message(message, capacity, "bad PNG filter flags 0x%x", (unsigned)o->filters);
        return CLANES_ERR_ARGUMENT;
    }
    if (o->text_count < 0 || (o->text_count > 0 && o->text == NULL)) {
        clanes_set_message(message, capacity, "bad PNG text count %d", o->text_count);
        return CLANES_ERR_ARGUMENT;
    }
    for (int32_t i = 0; i < 2 * o->text_count; i++) {
        if (!png_text_is_ascii(o->text[i], i % 2 == 0)) {
            clanes_set_message(message, capacity, "PNG text %s %d is not %s", i % 2 == 0 ? "key" : "value", i / 2,
                               i % 2 == 0 ? "1...79 printable ASCII bytes" : "ASCII");
            return CLANES_ERR_ARGUMENT;
        }
    }
    return CLANES_OK;
}

/* Hands the options' text pairs to libpng (as tEXt chunks written by png_write_info, before the image data). */
static void png_encoder_set_text(const clanes_encode_options *o, png_encoder_state *p) {
    if (o->text_count == 0) {
        return;
    }
    p->text = (png_textp)calloc((size_t)o->text_count, sizeof(png_text));
    if (p->text == NULL) {
        png_error(p->png, "out of memory for the text chunks");
    }
    for (int32_t i = 0; i < o->text_count; i++) {
        p->text[i].compression = PNG_TEXT_COMPRESSION_NONE;
        p->text[i].key = (png_charp)o->text[2 * i];
        p->text[i].text = (png_charp)o->text[2 * i + 1];
    }
    png_set_text(p->png, p->info, p->text, o->text_count);
}

static int32_t png_encoder_header(clanes_encoder *e, png_encoder_state *p) {
    if (setjmp(png_jmpbuf(p->png))) {
        return CLANES_ERR_ENCODE;
    }
    const clanes_encode_options *o = &e->options;
    int opaque = !o->has_alpha || o->channels == 1;
    png_set_write_fn(p->png, e, png_encoder_write, png_encoder_flush);
    png_set_compression_level(p->png, o->compression_level);
    png_set_filter(p->png, PNG_FILTER_TYPE_BASE, clanes_png_filter_mask(o->filters));
    png_set_IHDR(p->png, p->info, o->width, o->height, 8 * o->bytes_per_sample,
                 clanes_png_colour_type(o->channels, opaque), PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_encoder_set_text(o, p);
    png_write_info(p->png, p->info);
    if (opaque && o->channels != 1) {
        png_set_filler(p->png, 0, PNG_FILLER_AFTER); /* drop the alpha sample of each pixel */
    }
    if (o->bytes_per_sample == 2 && clanes_host_is_little_endian()) {
        png_set_swap(p->png);
    }
    return CLANES_OK;
}

static int32_t png_encoder_start(clanes_encoder *e) {
    png_encoder_state *p = (png_encoder_state *)calloc(1, sizeof(png_encoder_state));
    e->format_state = p;
    if (p != NULL) {
        p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, png_encoder_error, clanes_png_ignore_warning);
        p->info = p->png ? png_create_info_struct(p->png) : NULL;
    }
    if (p == NULL || p->png == NULL || p->info == NULL) {
        clanes_set_message(e->message, e->capacity, "out of memory creating the PNG encoder");
        return CLANES_ERR_NO_MEMORY;
    }
    return png_encoder_header(e, p);
}

static int32_t png_encoder_rows(clanes_encoder *e, const uint8_t *pixels, size_t bytes_per_row, uint32_t count) {
    png_encoder_state *p = (png_encoder_state *)e->format_state;
    if (setjmp(png_jmpbuf(p->png))) {
        return CLANES_ERR_ENCODE;
    }
    for (uint32_t y = 0; y < count; y++) {
        png_write_row(p->png, pixels + (size_t)y * bytes_per_row);
    }
    return CLANES_OK;
}

static int32_t png_encoder_end(clanes_encoder *e) {
    png_encoder_state *p = (png_encoder_state *)e->format_state;
    if (setjmp(png_jmpbuf(p->png))) {
        return CLANES_ERR_ENCODE;
    }
    png_write_end(p->png, p->info);
    return CLANES_OK;
}

static void png_encoder_destroy(clanes_encoder *e) {
    png_encoder_state *p = (png_encoder_state *)e->format_state;
    if (p == NULL) {
        return;
    }
    if (p->png != NULL) {
        png_destroy_write_struct(&p->png, p->info ? &p->info : NULL);
    }
    free(p->text);
    free(p);
    e->format_state = NULL;
}

const clanes_encoder_format clanes_png_encoder_format = {
    "PNG", 0x7FFFFFFFu, png_encoder_check, png_encoder_start, png_encoder_rows, png_encoder_end, png_encoder_destroy,
};
