/* libjpeg helpers shared by jpeg.c (whole images) and rows.c (row decoding). Not part of the public header. */
#ifndef CLANES_JPEG_INTERNAL_H
#define CLANES_JPEG_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jpeglib.h>

/* libjpeg's error manager plus where to jump and what to report. */
typedef struct jpeg_error_context {
    struct jpeg_error_mgr manager; /* first, so a j_common_ptr's err can be cast back */
    jmp_buf jump;
    int32_t status;
    char *message;
    size_t capacity;
} jpeg_error_context;

/* Fatal errors and damaged data longjmp to `error->jump` with a status and a message. */
void clanes_jpeg_install_errors(jpeg_error_context *error, char *message, size_t capacity);

/* A progress monitor that stops progressive files with more than CLANES_JPEG_MAX_SCANS scans. */
void clanes_jpeg_limit_scans(j_common_ptr cinfo);

/* jpeg_create_decompress with the scan limit installed through `progress` (which must outlive `cinfo`); every
 * decoder starts this way, after its setjmp. */
void clanes_jpeg_create_limited(j_decompress_ptr cinfo, struct jpeg_progress_mgr *progress);

/* Makes `source` (which must outlive `cinfo`) cinfo's source manager: `fill` and `skip` feed it, libjpeg's own
 * resync_to_restart handles restart markers, and there is nothing to do at its start or end. */
void clanes_jpeg_use_source(j_decompress_ptr cinfo, struct jpeg_source_mgr *source,
                            boolean (*fill)(j_decompress_ptr), void (*skip)(j_decompress_ptr, long));

/* Chooses RGBA8 output for a grey, YCbCr or RGB JPEG and CMYK (converted by clanes_cmyk_to_rgba, *cmyk set) for
 * a CMYK or YCCK one; CLANES_ERR_UNSUPPORTED with a message for any other colour space. */
int32_t clanes_jpeg_choose_rgba_output(j_decompress_ptr cinfo, int *cmyk, char *message, size_t capacity);

/* Converts `width` CMYK pixels (Adobe-inverted when `inverted`) to opaque RGBA8. */
void clanes_cmyk_to_rgba(const uint8_t *cmyk, uint8_t *rgba, uint32_t width, int inverted);

#endif
