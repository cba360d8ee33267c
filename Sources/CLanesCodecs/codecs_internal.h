/* Helpers shared by the codec shims. Not part of the public header. */
#ifndef CLANES_CODECS_INTERNAL_H
#define CLANES_CODECS_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Writes a formatted, always NUL-terminated message (when there is a buffer at all). */
void clanes_set_message(char *message, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads big-/little-endian integers from an unaligned byte pointer. */
static inline uint32_t clanes_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint16_t clanes_be16(const uint8_t *p) {
    return (uint16_t)(((uint16_t)p[0] << 8) | (uint16_t)p[1]);
}
static inline uint16_t clanes_le16(const uint8_t *p) {
    return (uint16_t)(((uint16_t)p[1] << 8) | (uint16_t)p[0]);
}
static inline uint32_t clanes_le32(const uint8_t *p) {
    return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | (uint32_t)p[0];
}

/* 1 for 1, 2 or 4 channels of 1 or 2 bytes; else 0, saying so in `message`. */
int clanes_layout_is_valid(int32_t channels, int32_t bytes_per_sample, char *message, size_t capacity);

/* Checks the arguments every decoder/encoder shares; returns CLANES_OK or CLANES_ERR_ARGUMENT. */
int32_t clanes_check_bitmap_arguments(const void *pixels, size_t bytes_per_row,
                                      uint32_t width, uint32_t height,
                                      char *message, size_t capacity);

/* The same for a layout of `channels` (1, 2, 4) samples of `bytes_per_sample` (1, 2). */
int32_t clanes_check_layout_arguments(const void *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                      int32_t channels, int32_t bytes_per_sample,
                                      char *message, size_t capacity);

/* 1 when this host stores uint16 little-endian (PNG's 16-bit samples are big-endian: libpng swaps them). */
static inline int clanes_host_is_little_endian(void) {
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

/*
 * A growable output buffer for the encoders. It never longjmps: clanes_buffer_reserve reports
 * failure by returning 0 and the caller raises its codec's error (png_error, ERREXIT) itself.
 * It lives in the encoder's context struct, so it stays valid across that longjmp; the caller
 * frees `bytes` with free() (or hands it out for clanes_free).
 */
typedef struct clanes_buffer {
    uint8_t *bytes;
    size_t size;     /* bytes written */
    size_t capacity; /* bytes allocated */
} clanes_buffer;

/* Makes room for `extra` more bytes after `size` (doubling, 4 KB at least); 1 on success, 0 when out of memory. */
int clanes_buffer_reserve(clanes_buffer *buffer, size_t extra);

/* Appends `length` bytes; 1 on success, 0 when out of memory (the buffer is left as it was). */
int clanes_buffer_append(clanes_buffer *buffer, const void *bytes, size_t length);

/* The libpng filter mask for CLANES_PNG_FILTER_* flags (0 when none is set; callers reject that first). */
int clanes_png_filter_mask(int32_t filters);

/* Caps what libpng may allocate for ancillary chunks (see png.c); set on every PNG read struct. */
struct png_struct_def;
void clanes_png_limit_ancillary(struct png_struct_def *png);

/* libpng's warnings (a harmless oddity of a file) are not errors: every PNG read and write struct drops them. */
void clanes_png_ignore_warning(struct png_struct_def *png, const char *text);

/* What every libpng error callback does: "`prefix`: `text`" into the message buffer, then back to the setjmp. */
void clanes_png_raise(struct png_struct_def *png, char *message, size_t capacity, const char *prefix, const char *text);

/* The transforms from any PNG to a layout (see png.c); 0 when a colour PNG is asked for grey. */
struct png_info_def;
int clanes_png_set_layout(struct png_struct_def *png, struct png_info_def *info, int32_t channels,
                          int32_t bytes_per_sample, int *opaque);

/* libpng's reader for the row and push parts, its ancillary chunks capped: `owner` is what `on_error` finds with
 * png_get_error_ptr. CLANES_OK, or CLANES_ERR_NO_MEMORY with a message (the caller's close frees what was made). */
typedef void (*clanes_png_error_fn)(struct png_struct_def *, const char *);
int32_t clanes_png_create_reader(void *owner, clanes_png_error_fn on_error, struct png_struct_def **png,
                                 struct png_info_def **info, char *message, size_t capacity);

/* The PNG colour type for `channels` samples (1, 2, 4), without alpha when `opaque` (shared with png_stream.c). */
int clanes_png_colour_type(int32_t channels, int opaque);

#endif
