/*
 * The one decoder context (clanes_decoder.h): the source, the header and its limits, and the dispatch to the format's
 * part (the table below). Every message of a call lands in the context's buffer; after a failure the context is done.
 */
#include "decoder_parts.h"
#include "incremental_internal.h"
#include "rows_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DECODER_DEFAULT_MAX_PIXELS 100000000ull
/* A descriptor's header is read from this prefix, four times more while the header runs past it. */
#define DECODER_HEADER_PREFIX (256u << 10)

enum { SOURCE_NONE, SOURCE_BUFFER, SOURCE_FD, SOURCE_PUSH };

struct clanes_decoder {
    clanes_decoder_options options;
    int source;
    const uint8_t *data;       /* SOURCE_BUFFER */
    int fd;                    /* SOURCE_FD */
    size_t size;               /* the buffer's or the file's bytes */
    clanes_buffer kept;        /* a file read whole; pushed bytes before the header, or all of them when kept */
    int end_of_input;
    const clanes_decoder_part *part;
    clanes_info header;
    int have_header;
    clanes_row_decoder *rows;
    clanes_incremental *incremental;
    clanes_progress progress;
    clanes_frames frames;
    int frames_open;
    int32_t failure;           /* the status that ended the context (CLANES_OK while it works) */
    char message[CLANES_MESSAGE_CAPACITY];
};

/* ---------- the parts ---------- */

static int png_matches(const uint8_t *data, size_t size) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    return size >= 8 && memcmp(data, signature, 8) == 0;
}

static int jpeg_matches(const uint8_t *data, size_t size) {
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

static int webp_matches(const uint8_t *data, size_t size) {
    return size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0;
}

static int gif_matches(const uint8_t *data, size_t size) {
    return size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0);
}

static int avif_matches(const uint8_t *data, size_t size) {
    return size >= 12 && memcmp(data + 4, "ftyp", 4) == 0
        && (memcmp(data + 8, "avif", 4) == 0 || memcmp(data + 8, "avis", 4) == 0);
}

/* The major brands of HEIF files (HEVC stills and sequences, and the generic image brands libheif reads). */
static int heif_matches(const uint8_t *data, size_t size) {
    static const char brands[][4] = {{'h','e','i','c'}, {'h','e','i','x'}, {'h','e','v','c'}, {'h','e','v','x'},
                                     {'h','e','i','m'}, {'h','e','i','s'}, {'m','i','f','1'}, {'m','s','f','1'}};
    if (size < 12 || memcmp(data + 4, "ftyp", 4) != 0) return 0;
    for (size_t i = 0; i < sizeof brands / sizeof brands[0]; i++) {
        if (memcmp(data + 8, brands[i], 4) == 0) return 1;
    }
    return 0;
}

/* A JPEG XL codestream (FF 0A) or its ISO BMFF container (a 12-byte `JXL ` box). */
static int jxl_matches(const uint8_t *data, size_t size) {
    static const uint8_t container[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    return (size >= 2 && data[0] == 0xFF && data[1] == 0x0A) || (size >= 12 && memcmp(data, container, 12) == 0);
}

static const clanes_decoder_part parts[] = {
    {.format = CLANES_FORMAT_PNG, .name = "PNG", .matches = png_matches, .probe = clanes_png_probe,
     .decode_whole = clanes_png_decode, .rows = &clanes_png_rows, .push = &clanes_png_push},
    {.format = CLANES_FORMAT_JPEG, .name = "JPEG", .matches = jpeg_matches, .probe = clanes_jpeg_probe,
     .decode_whole = clanes_jpeg_decode, .rows = &clanes_jpeg_rows, .push = &clanes_jpeg_push,
     .decode_thumbnail = clanes_jpeg_decode_thumbnail},
    {.format = CLANES_FORMAT_WEBP, .name = "WebP", .matches = webp_matches, .probe = clanes_webp_probe,
     .frames = &clanes_webp_codec},
    {.format = CLANES_FORMAT_GIF, .name = "GIF", .matches = gif_matches, .probe = clanes_gif_probe,
     .frames = &clanes_gif_codec},
    {.format = CLANES_FORMAT_AVIF, .name = "AVIF", .matches = avif_matches, .probe = clanes_avif_probe,
     .frames = &clanes_avif_codec},
    {.format = CLANES_FORMAT_HEIF, .name = "HEIF", .matches = heif_matches, .probe = clanes_heif_probe,
     .frames = &clanes_heif_codec, .decode_thumbnail = clanes_heif_decode_thumbnail},
    {.format = CLANES_FORMAT_JXL, .name = "JPEG XL", .matches = jxl_matches, .probe = clanes_jxl_probe,
     .frames = &clanes_jxl_codec, .decode_thumbnail = clanes_jxl_decode_thumbnail},
};

const clanes_decoder_part *clanes_decoder_part_for(const uint8_t *data, size_t size) {
    for (size_t i = 0; data != NULL && i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].matches(data, size)) return &parts[i];
    }
    return NULL;
}

/* ---------- helpers ---------- */

/* Ends the context with `status` (its message already written) unless it is CLANES_OK. */
static int32_t settle(clanes_decoder *d, int32_t status) {
    if (status != CLANES_OK && d->failure == CLANES_OK) d->failure = status;
    return status;
}

static int32_t fail(clanes_decoder *d, int32_t status, const char *text) {
    clanes_set_message(d->message, sizeof d->message, "%s", text);
    return settle(d, status);
}

/* CLANES_OK when the context may take another call; else the status that ended it (its message kept). */
static int32_t usable(const clanes_decoder *d) {
    return d == NULL ? CLANES_ERR_ARGUMENT : d->failure;
}

/* Reads `length` bytes at `offset` of the descriptor into `out`; the bytes read (short at the end or on error). */
static size_t read_fd(int fd, uint8_t *out, size_t length, size_t offset) {
    size_t done = 0;
    while (done < length) {
        ssize_t got = pread(fd, out + done, length - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        done += (size_t)got;
    }
    return done;
}

/* The whole input in memory: the buffer, the file read once into `kept`, or every pushed byte (kept, all in). */
static int32_t whole_input(clanes_decoder *d, const uint8_t **data, size_t *size) {
    if (d->source == SOURCE_BUFFER) {
        *data = d->data;
        *size = d->size;
        return CLANES_OK;
    }
    if (d->source == SOURCE_FD && d->kept.size < d->size) {
        d->kept.size = 0;
        if (!clanes_buffer_reserve(&d->kept, d->size)) return fail(d, CLANES_ERR_NO_MEMORY, "out of memory for the file");
        d->kept.size = read_fd(d->fd, d->kept.bytes, d->size, 0);
        if (d->kept.size < d->size) {
            clanes_set_message(d->message, sizeof d->message, "cannot read the file: %s", strerror(errno));
            return settle(d, CLANES_ERR_IO);
        }
    }
    if (d->source == SOURCE_PUSH && !d->end_of_input) {
        return fail(d, CLANES_ERR_ARGUMENT, "the pushed input has not ended yet");
    }
    if (d->source == SOURCE_PUSH && d->part != NULL && d->part->push != NULL && !d->options.keep_input) {
        return fail(d, CLANES_ERR_ARGUMENT, "pushed bytes are decoded whole only when kept (keep_input)");
    }
    *data = d->kept.bytes;
    *size = d->kept.size;
    return CLANES_OK;
}

/* Reads the header from `data`, picks the part and checks max_pixels: before any image-sized allocation. */
static int32_t read_header(clanes_decoder *d, const uint8_t *data, size_t size) {
    clanes_info info;
    memset(&info, 0, sizeof info);
    info.orientation = 1;
    const clanes_decoder_part *part = clanes_decoder_part_for(data, size);
    if (part == NULL) {
        clanes_set_message(d->message, sizeof d->message,
                           size < 12 ? "the data ends before a signature (%zu bytes)"
                                     : "not a PNG, JPEG, WebP, GIF, AVIF, HEIF or JPEG XL signature", size);
        return size < 12 ? CLANES_ERR_TRUNCATED : CLANES_ERR_UNSUPPORTED;
    }
    int32_t status = part->probe(data, size, &info, d->message, sizeof d->message);
    if (status != CLANES_OK) return status;
    info.frame_count = info.animated ? 0 : 1;
    d->header = info; /* kept even over the limit, to say what was refused */
    uint64_t pixels = (uint64_t)info.width * info.height;
    if (pixels > d->options.max_pixels) {
        clanes_set_message(d->message, sizeof d->message, "%s of %ux%u pixels exceeds the limit of %llu pixels",
                           part->name, info.width, info.height, (unsigned long long)d->options.max_pixels);
        return CLANES_ERR_TOO_LARGE;
    }
    d->part = part;
    d->have_header = 1;
    return CLANES_OK;
}

/* A descriptor's header: a prefix of the file, read again four times longer while the header runs past it. */
static int32_t read_fd_header(clanes_decoder *d) {
    size_t length = d->size < DECODER_HEADER_PREFIX ? d->size : DECODER_HEADER_PREFIX;
    for (;;) {
        uint8_t *prefix = (uint8_t *)malloc(length ? length : 1);
        if (prefix == NULL) return fail(d, CLANES_ERR_NO_MEMORY, "out of memory reading the header");
        size_t got = read_fd(d->fd, prefix, length, 0);
        int32_t status = read_header(d, prefix, got);
        free(prefix);
        if (status != CLANES_ERR_TRUNCATED || got < length || length >= d->size) return status;
        length = d->size / 4 < length ? d->size : length * 4;
    }
}

/* ---------- the context ---------- */

int32_t clanes_decoder_create(const clanes_decoder_options *options, clanes_decoder **decoder) {
    if (decoder == NULL) return CLANES_ERR_ARGUMENT;
    clanes_decoder *d = (clanes_decoder *)calloc(1, sizeof(clanes_decoder));
    *decoder = d;
    if (d == NULL) return CLANES_ERR_NO_MEMORY;
    if (options != NULL) d->options = *options;
    if (d->options.max_pixels == 0) d->options.max_pixels = DECODER_DEFAULT_MAX_PIXELS;
    if (d->options.max_bytes == 0) d->options.max_bytes = UINT64_MAX;
    if (d->options.scale_denom == 0) d->options.scale_denom = 1;
    int32_t scale = d->options.scale_denom;
    if (scale != 1 && scale != 2 && scale != 4 && scale != 8) {
        clanes_set_message(d->message, sizeof d->message, "scale 1/%d is not one of 1, 1/2, 1/4, 1/8", scale);
        return settle(d, CLANES_ERR_ARGUMENT);
    }
    d->fd = -1;
    return CLANES_OK;
}

static int32_t set_source(clanes_decoder *d, int source) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    if (d->source != SOURCE_NONE) return fail(d, CLANES_ERR_ARGUMENT, "the decoder already has a source");
    d->source = source;
    return CLANES_OK;
}

int32_t clanes_decoder_set_buffer(clanes_decoder *d, const uint8_t *data, size_t size) {
    int32_t status = set_source(d, SOURCE_BUFFER);
    if (status != CLANES_OK) return status;
    if (data == NULL && size > 0) return fail(d, CLANES_ERR_ARGUMENT, "no data");
    d->data = data;
    d->size = size;
    return CLANES_OK;
}

int32_t clanes_decoder_set_fd(clanes_decoder *d, int fd, size_t size) {
    int32_t status = set_source(d, SOURCE_FD);
    if (status != CLANES_OK) return status;
    if (fd < 0) return fail(d, CLANES_ERR_ARGUMENT, "no file descriptor");
    d->fd = fd;
    d->size = size;
    return CLANES_OK;
}

int32_t clanes_decoder_set_push(clanes_decoder *d) {
    return set_source(d, SOURCE_PUSH);
}

/* A call to the incremental decoder writing to `rows`, its message into the context's. */
static clanes_incremental_call incremental_call(clanes_decoder *d, uint8_t *rows, size_t bytes_per_row,
                                                uint32_t count) {
    clanes_incremental_call call;
    memset(&call, 0, sizeof call);
    call.rows = rows;
    call.bytes_per_row = bytes_per_row;
    call.count = count;
    call.message = d->message;
    call.message_capacity = sizeof d->message;
    return call;
}

/* Hands `data` to the incremental decoder (PNG, JPEG), keeping its progress. */
static int32_t feed_incremental(clanes_decoder *d, const uint8_t *data, size_t size) {
    clanes_incremental_call call = incremental_call(d, NULL, 0, 0);
    call.data = data;
    call.size = size;
    call.end_of_input = d->end_of_input;
    int32_t status = clanes_incremental_feed(d->incremental, &call);
    d->progress = call.state;
    return status;
}

/* The header has arrived: a PNG or JPEG starts its incremental decoder on the bytes so far. */
static int32_t start_incremental(clanes_decoder *d) {
    clanes_incremental_options options;
    memset(&options, 0, sizeof options);
    options.part = d->part->push;
    options.max_pixels = d->options.max_pixels;
    options.previews = d->options.previews;
    options.scale_denom = d->options.scale_denom;
    int32_t status = clanes_incremental_create(&options, &d->incremental, d->message, sizeof d->message);
    if (status != CLANES_OK) return status;
    status = feed_incremental(d, d->kept.bytes, d->kept.size);
    if (!d->options.keep_input) {
        free(d->kept.bytes);
        memset(&d->kept, 0, sizeof d->kept);
    }
    return status;
}

int32_t clanes_decoder_push(clanes_decoder *d, const uint8_t *data, size_t size, int32_t end_of_input) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    if (d->source != SOURCE_PUSH) return fail(d, CLANES_ERR_ARGUMENT, "the decoder's source is not pushed bytes");
    if (data == NULL && size > 0) return fail(d, CLANES_ERR_ARGUMENT, "no data");
    if (d->end_of_input) return fail(d, CLANES_ERR_ARGUMENT, "bytes pushed after the end of the input");
    d->end_of_input = end_of_input != 0;
    int keeps = !d->have_header || d->options.keep_input || d->part->push == NULL;
    if (keeps && size > 0 && !clanes_buffer_append(&d->kept, data, size)) {
        return fail(d, CLANES_ERR_NO_MEMORY, "out of memory for the pushed bytes");
    }
    if (!d->have_header) {
        status = read_header(d, d->kept.bytes, d->kept.size);
        if (status == CLANES_ERR_TRUNCATED && !d->end_of_input) return CLANES_OK; /* more bytes will come */
        if (status != CLANES_OK) return settle(d, status);
        d->progress.header_ready = 1;
        d->progress.width = d->header.width;
        d->progress.height = d->header.height;
        if (d->part->push != NULL) return settle(d, start_incremental(d));
    } else if (d->incremental != NULL) {
        return settle(d, feed_incremental(d, data, size));
    }
    d->progress.input_complete = d->end_of_input;
    d->progress.held_bytes = d->kept.size;
    return CLANES_OK;
}

int32_t clanes_decoder_header(clanes_decoder *d, clanes_info *header) {
    int32_t status = usable(d);
    if (status == CLANES_ERR_TOO_LARGE && header != NULL && d->header.width > 0) *header = d->header;
    if (status != CLANES_OK) return status;
    if (header == NULL) return fail(d, CLANES_ERR_ARGUMENT, "no header to fill");
    if (!d->have_header) {
        switch (d->source) {
        case SOURCE_BUFFER: status = read_header(d, d->data, d->size); break;
        case SOURCE_FD: status = read_fd_header(d); break;
        case SOURCE_PUSH:
            clanes_set_message(d->message, sizeof d->message, "the header has not arrived yet");
            return d->end_of_input ? settle(d, CLANES_ERR_TRUNCATED) : CLANES_ERR_TRUNCATED;
        default: return fail(d, CLANES_ERR_ARGUMENT, "the decoder has no source");
        }
        if (status == CLANES_ERR_TOO_LARGE) *header = d->header;
        if (status != CLANES_OK) return settle(d, status);
    }
    *header = d->header;
    return CLANES_OK;
}

int32_t clanes_decoder_scaled_size(clanes_decoder *d, uint32_t *width, uint32_t *height) {
    clanes_info header;
    int32_t status = clanes_decoder_header(d, &header);
    if (status != CLANES_OK) return status;
    int32_t scale = header.format == CLANES_FORMAT_JPEG ? d->options.scale_denom : 1;
    *width = clanes_jpeg_scaled_dimension(header.width, scale);
    *height = clanes_jpeg_scaled_dimension(header.height, scale);
    return CLANES_OK;
}

int32_t clanes_decoder_decode(clanes_decoder *d, const clanes_pixels *image) {
    clanes_info header;
    int32_t status = clanes_decoder_header(d, &header);
    if (status != CLANES_OK) return status;
    if (image == NULL) return fail(d, CLANES_ERR_ARGUMENT, "no pixel buffer");
    if (d->part->frames != NULL) {
        clanes_frames_report report;
        if (!d->frames_open && (status = clanes_decoder_start_frames(d, &report)) != CLANES_OK) return status;
        if (image->channels != 4 || image->bytes_per_sample != 1 || image->width != d->frames.out.width
            || image->height != d->frames.out.height) {
            return fail(d, CLANES_ERR_ARGUMENT, "a frame decodes to RGBA8 of the size start_frames reports");
        }
        int32_t delay = 0;
        return clanes_decoder_next_frame(d, image->pixels, image->bytes_per_row, &delay);
    }
    uint32_t width, height;
    clanes_decoder_scaled_size(d, &width, &height);
    if (image->width != width || image->height != height) {
        clanes_set_message(d->message, sizeof d->message, "the image is %ux%u, not the %ux%u asked for", width, height,
                           image->width, image->height);
        return settle(d, CLANES_ERR_ARGUMENT);
    }
    uint64_t bytes = (uint64_t)image->width * image->height * (uint64_t)(image->channels * image->bytes_per_sample);
    if (bytes > d->options.max_bytes) {
        clanes_set_message(d->message, sizeof d->message, "%s needs %llu bytes, more than the limit of %llu bytes",
                           d->part->name, (unsigned long long)bytes, (unsigned long long)d->options.max_bytes);
        return settle(d, CLANES_ERR_TOO_LARGE);
    }
    const uint8_t *data;
    size_t size;
    if ((status = whole_input(d, &data, &size)) != CLANES_OK) return status;
    status = d->part->decode_whole(data, size, d->options.scale_denom, image, d->message, sizeof d->message);
    return settle(d, status);
}

int32_t clanes_decoder_decode_thumbnail(clanes_decoder *d, const clanes_pixels *image) {
    clanes_info header;
    int32_t status = clanes_decoder_header(d, &header);
    if (status != CLANES_OK) return status;
    if (header.thumbnail_width == 0 || header.thumbnail_height == 0 || d->part->decode_thumbnail == NULL) {
        /* Not an error that ends the context: the caller decodes the image instead. */
        clanes_set_message(d->message, sizeof d->message, "the %s has no embedded thumbnail", d->part->name);
        return CLANES_ERR_UNSUPPORTED;
    }
    if (image == NULL || image->channels != 4 || image->bytes_per_sample != 1
        || image->width != header.thumbnail_width || image->height != header.thumbnail_height) {
        return fail(d, CLANES_ERR_ARGUMENT, "a thumbnail decodes to RGBA8 of the size the header reports");
    }
    /* The header's stored size: a JPEG's Exif thumbnail is stored as its image is, the others are both upright. */
    if (header.thumbnail_width > header.width || header.thumbnail_height > header.height) {
        clanes_set_message(d->message, sizeof d->message,
                           "the %s's embedded thumbnail (%ux%u) is larger than its image (%ux%u)", d->part->name,
                           header.thumbnail_width, header.thumbnail_height, header.width, header.height);
        return settle(d, CLANES_ERR_CORRUPT);
    }
    uint64_t bytes = (uint64_t)header.thumbnail_width * header.thumbnail_height * 4;
    if (bytes > d->options.max_bytes) {
        clanes_set_message(d->message, sizeof d->message, "the thumbnail needs %llu bytes, more than the limit of %llu",
                           (unsigned long long)bytes, (unsigned long long)d->options.max_bytes);
        return settle(d, CLANES_ERR_TOO_LARGE);
    }
    const uint8_t *data;
    size_t size;
    if ((status = whole_input(d, &data, &size)) != CLANES_OK) return status;
    status = d->part->decode_thumbnail(data, size, &header, image, d->message, sizeof d->message);
    return settle(d, status);
}

int32_t clanes_decoder_start_rows(clanes_decoder *d, clanes_row_layout *layout) {
    clanes_info header;
    int32_t status = clanes_decoder_header(d, &header);
    if (status != CLANES_OK) return status;
    if (layout == NULL || d->rows != NULL) return fail(d, CLANES_ERR_ARGUMENT, "rows already started, or no layout");
    if (d->part->rows == NULL) {
        clanes_set_message(d->message, sizeof d->message, "%s is decoded whole (its library reads no rows)",
                           d->part->name);
        return settle(d, CLANES_ERR_UNSUPPORTED);
    }
    if (d->source == SOURCE_PUSH) return fail(d, CLANES_ERR_ARGUMENT, "pushed bytes give rows as they arrive");
    clanes_row_request request;
    memset(&request, 0, sizeof request);
    request.data = d->source == SOURCE_BUFFER ? d->data : NULL;
    request.size = d->size;
    request.fd = d->source == SOURCE_FD ? d->fd : -1;
    request.part = d->part->rows;
    request.scale_denom = d->options.scale_denom;
    request.channels = d->options.channels;
    request.bytes_per_sample = d->options.bytes_per_sample;
    status = clanes_row_decoder_open(&request, &d->rows, layout, d->message, sizeof d->message);
    return settle(d, status);
}

int32_t clanes_decoder_read_rows(clanes_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count,
                                 uint32_t *delivered) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    if (delivered == NULL) return fail(d, CLANES_ERR_ARGUMENT, "nowhere to say how many rows were read");
    *delivered = 0;
    if (d->rows != NULL) {
        status = clanes_row_decoder_read(d->rows, rows, bytes_per_row, count, d->message, sizeof d->message);
        if (status == CLANES_ERR_IO) {
            char reason[CLANES_MESSAGE_CAPACITY];
            memcpy(reason, d->message, sizeof reason);
            clanes_set_message(d->message, sizeof d->message, "cannot read the file: %s", reason);
        }
        if (status == CLANES_OK) *delivered = count;
        return settle(d, status);
    }
    if (d->incremental == NULL) return fail(d, CLANES_ERR_ARGUMENT, "no rows started (start_rows, or push a header)");
    clanes_incremental_call call = incremental_call(d, rows, bytes_per_row, count);
    status = clanes_incremental_read(d->incremental, &call);
    if (call.state.header_ready) d->progress = call.state;
    *delivered = call.delivered;
    return settle(d, status);
}

uint32_t clanes_decoder_rows_read(const clanes_decoder *d) {
    if (d == NULL) return 0;
    return d->rows != NULL ? clanes_row_decoder_rows_read(d->rows) : d->progress.rows_read;
}

int32_t clanes_decoder_progress(const clanes_decoder *d, clanes_progress *progress) {
    if (d == NULL || progress == NULL) return CLANES_ERR_ARGUMENT;
    *progress = d->progress;
    if (d->options.keep_input && d->incremental != NULL) progress->held_bytes += d->kept.capacity;
    return d->failure;
}

int32_t clanes_decoder_preview(clanes_decoder *d, uint8_t *rows, size_t bytes_per_row) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    if (d->incremental == NULL) return fail(d, CLANES_ERR_ARGUMENT, "no preview is ready");
    clanes_incremental_call call = incremental_call(d, rows, bytes_per_row, 0);
    status = clanes_incremental_preview(d->incremental, &call);
    if (call.state.header_ready) d->progress = call.state;
    /* Asking before a preview is ready is a caller's slip, not the end of the decode. */
    return status == CLANES_ERR_ARGUMENT ? status : settle(d, status);
}

int32_t clanes_decoder_start_frames(clanes_decoder *d, clanes_frames_report *report) {
    clanes_info header;
    int32_t status = clanes_decoder_header(d, &header);
    if (status != CLANES_OK) return status;
    if (report == NULL || d->frames_open) return fail(d, CLANES_ERR_ARGUMENT, "frames already started, or no report");
    if (d->part->frames == NULL) {
        clanes_set_message(d->message, sizeof d->message, "%s is one image: decode it whole or in rows",
                           d->part->name);
        return settle(d, CLANES_ERR_UNSUPPORTED);
    }
    const uint8_t *data;
    size_t size;
    if ((status = whole_input(d, &data, &size)) != CLANES_OK) return status;
    clanes_frames *f = &d->frames;
    memset(f, 0, sizeof *f);
    f->codec = d->part->frames;
    f->format = d->part->format;
    f->data = data;
    f->size = size;
    f->max_pixels = d->options.max_pixels;
    f->max_bytes = d->options.max_bytes;
    f->max_frames = d->options.max_frames;
    f->first_frame_only = d->options.first_frame_only;
    f->scaled_width = d->options.scaled_width;
    f->scaled_height = d->options.scaled_height;
    status = clanes_frames_open(f);
    d->frames_open = 1;
    if (status != CLANES_OK) {
        memcpy(d->message, f->message, sizeof d->message);
        return settle(d, status);
    }
    d->header.frame_count = f->out.frame_count;
    *report = f->out;
    return CLANES_OK;
}

int32_t clanes_decoder_next_frame(clanes_decoder *d, uint8_t *pixels, size_t bytes_per_row, int32_t *delay_ms) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    if (!d->frames_open || delay_ms == NULL) return fail(d, CLANES_ERR_ARGUMENT, "no frames started, or no delay");
    status = clanes_frames_next(&d->frames, pixels, bytes_per_row);
    *delay_ms = d->frames.delay_ms;
    if (status != CLANES_OK) memcpy(d->message, d->frames.message, sizeof d->message);
    return settle(d, status);
}

int32_t clanes_decoder_read_text(clanes_decoder *d, char *out, size_t capacity, size_t *length, int32_t *count) {
    int32_t status = usable(d);
    if (status != CLANES_OK) return status;
    const uint8_t *data;
    size_t size;
    if ((status = whole_input(d, &data, &size)) != CLANES_OK) return status;
    if (!png_matches(data, size)) return fail(d, CLANES_ERR_UNSUPPORTED, "not a PNG signature");
    status = clanes_png_read_text(data, size, out, capacity, length, count, d->message, sizeof d->message);
    return settle(d, status);
}

const char *clanes_decoder_message(const clanes_decoder *d) {
    return d == NULL ? "out of memory creating a decoder" : d->message;
}

const char *clanes_strerror(int32_t status) {
    switch (status) {
    case CLANES_OK: return "success";
    case CLANES_ERR_UNSUPPORTED: return "unsupported format or variant";
    case CLANES_ERR_TRUNCATED: return "truncated data";
    case CLANES_ERR_CORRUPT: return "corrupt data";
    case CLANES_ERR_TOO_LARGE: return "over a limit";
    case CLANES_ERR_NO_MEMORY: return "out of memory";
    case CLANES_ERR_ARGUMENT: return "invalid argument";
    case CLANES_ERR_ENCODE: return "encoding failed";
    case CLANES_ERR_IO: return "input/output error";
    default: return "unknown status";
    }
}

void clanes_decoder_destroy(clanes_decoder *d) {
    if (d == NULL) return;
    clanes_row_decoder_destroy(d->rows);
    clanes_incremental_destroy(d->incremental);
    if (d->frames_open) clanes_frames_close(&d->frames);
    free(d->kept.bytes);
    free(d);
}
