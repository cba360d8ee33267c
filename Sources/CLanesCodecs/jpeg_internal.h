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

/* Makes `error` cinfo's error manager: fatal errors and damaged data longjmp to `error->jump` with a status and a
 * message. */
void clanes_jpeg_install_errors(j_common_ptr cinfo, jpeg_error_context *error, char *message, size_t capacity);

/* A progress monitor that stops progressive files with more than CLANES_JPEG_MAX_SCANS scans. */
void clanes_jpeg_limit_scans(j_common_ptr cinfo);

/* jpeg_create_decompress with the scan limit installed through `progress` (which must outlive `cinfo`) and `client`
 * as its client_data; *created is set once there is something for jpeg_destroy_decompress. Every decoder starts this
 * way, after its setjmp. */
void clanes_jpeg_create_limited(j_decompress_ptr cinfo, struct jpeg_progress_mgr *progress, void *client,
                                int *created);

/* Makes `source` (which must outlive `cinfo`) cinfo's source manager: `fill` and `skip` feed it, libjpeg's own
 * resync_to_restart handles restart markers, and there is nothing to do at its start or end. */
void clanes_jpeg_use_source(j_decompress_ptr cinfo, struct jpeg_source_mgr *source,
                            boolean (*fill)(j_decompress_ptr), void (*skip)(j_decompress_ptr, long));

/* Chooses RGBA8 output for a grey, YCbCr or RGB JPEG and CMYK (converted by clanes_cmyk_to_rgba, *cmyk set) for
 * a CMYK or YCCK one; CLANES_ERR_UNSUPPORTED with a message for any other colour space. */
int32_t clanes_jpeg_choose_rgba_output(j_decompress_ptr cinfo, int *cmyk, char *message, size_t capacity);

/* What a JPEG part reading a file holds (jpeg_rows.c, jpeg_push.c): libjpeg's struct, its error manager, the scan
 * limit, a source manager and a CMYK row. A part's state starts with one. */
typedef struct clanes_jpeg_reader {
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context error;
    struct jpeg_progress_mgr progress;
    struct jpeg_source_mgr source;
    int created;
    int cmyk;          /* set by clanes_jpeg_choose_rgba_output */
    uint8_t *cmyk_row; /* a CMYK file's row before conversion */
} clanes_jpeg_reader;

/* A zeroed state of `size` bytes that starts with a reader whose errors go to `message` (NULL, said in `message`, when
 * out of memory). Then: setjmp on its error.jump, and clanes_jpeg_create_limited. */
void *clanes_jpeg_reader_new(size_t size, char *message, size_t capacity);

/* The next output row into `destination` as RGBA8 (through the CMYK row for a CMYK file); 0 when libjpeg suspended. */
int clanes_jpeg_reader_row(clanes_jpeg_reader *reader, uint8_t *destination);

/* Destroys libjpeg's struct and frees the CMYK row (the state itself is the caller's). */
void clanes_jpeg_reader_end(clanes_jpeg_reader *reader);

/* Converts `width` CMYK pixels (Adobe-inverted when `inverted`) to opaque RGBA8. */
void clanes_cmyk_to_rgba(const uint8_t *cmyk, uint8_t *rgba, uint32_t width, int inverted);

#endif
