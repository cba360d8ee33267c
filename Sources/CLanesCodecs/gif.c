/*
 * GIF through giflib's record-level API, never DGifSlurp (which allocates every frame's indices before anything
 * can be checked). clanes_frames_open walks the records once, skipping each frame's LZW data undecoded, to count
 * the frames and read the loop count; the limits are checked; then a second pass decodes each frame a row at a
 * time into the canvas, which is composited as browsers do: transparent background, a frame's transparent index
 * leaves the canvas as it was, disposal 2 clears the frame's rectangle to transparent, disposal 3 restores the
 * canvas from before the frame. Frames reaching past the canvas are clipped.
 *
 * Shrink-on-load: when only the first frame is wanted, it covers the canvas without transparency, and a scaled size
 * is asked for, each decoded row is summed into blocks of the largest whole factor k that keeps at least that size
 * (the frame handed out is ceil(canvas / k) a side, each pixel its block's mean), so no canvas is allocated and the
 * caller resizes an image k² times smaller. giflib itself has no scaling.
 */
#include "decoder_parts.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

typedef struct gif_reader {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int cut; /* a read ran past the end */
} gif_reader;

struct clanes_frames_state {
    gif_reader reader;
    GifFileType *gif;
    uint8_t *canvas;     /* the composited canvas, RGBA */
    uint8_t *previous;   /* the canvas before a frame with disposal 3 */
    GifPixelType *line;  /* one row of a frame's indices */
    uint32_t shrink;     /* > 1: the first frame is box-filtered by this factor while it decodes (no canvas) */
    uint32_t *sums;      /* with shrink: R, G, B sums of each output pixel's block */
    /* the disposal of the frame shown last, applied before the next frame is drawn */
    int dispose;
    uint32_t left, top, right, bottom;
};

static int gif_read(GifFileType *gif, GifByteType *out, int length) {
    gif_reader *r = (gif_reader *)gif->UserData;
    size_t wanted = length > 0 ? (size_t)length : 0;
    size_t left = r->size - r->offset;
    size_t count = wanted < left ? wanted : left;
    memcpy(out, r->data + r->offset, count);
    r->offset += count;
    if (count < wanted) r->cut = 1;
    return (int)count;
}

static int32_t gif_error(const gif_reader *r, int code, char *message, size_t capacity, const char *where) {
    if (r->cut || code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON) {
        clanes_set_message(message, capacity, "GIF ends inside its %s", where);
        return CLANES_ERR_TRUNCATED;
    }
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM) {
        clanes_set_message(message, capacity, "out of memory reading a GIF's %s", where);
        return CLANES_ERR_NO_MEMORY;
    }
    const char *text = GifErrorString(code);
    clanes_set_message(message, capacity, "GIF %s is corrupt: %s", where, text ? text : "unknown giflib error");
    return CLANES_ERR_CORRUPT;
}

int32_t clanes_gif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    if (size < 13) {
        clanes_set_message(message, capacity, "GIF ends inside its header (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    info->format = CLANES_FORMAT_GIF;
    info->width = clanes_le16(data + 6);
    info->height = clanes_le16(data + 8);
    info->components = 4; /* a palette, maybe with a transparent index */
    info->bit_depth = 8;
    info->progressive = 0;
    info->layout_channels = 4;
    info->layout_bytes = 1;
    if (info->width == 0 || info->height == 0) {
        clanes_set_message(message, capacity, "GIF has an empty canvas (%ux%u)", info->width, info->height);
        return CLANES_ERR_CORRUPT;
    }
    return CLANES_OK;
}

/* Opens giflib on the input from its start. */
static int32_t gif_begin(clanes_frames *f) {
    clanes_frames_state *s = f->state;
    if (s->gif != NULL) {
        DGifCloseFile(s->gif, NULL);
        s->gif = NULL;
    }
    s->reader = (gif_reader){f->data, f->size, 0, 0};
    int error = 0;
    s->gif = DGifOpen(&s->reader, gif_read, &error);
    if (s->gif == NULL) {
        return gif_error(&s->reader, error, f->message, sizeof f->message, "header");
    }
    return CLANES_OK;
}

/* The graphics control extension's fields (block: its data, block[0] the length). */
typedef struct gif_control {
    int dispose;
    int delay_cs;
    int transparent; /* -1: none */
} gif_control;

/*
 * Reads the next record up to and including an image header: its graphics control fills `control`, and the
 * loop count (NETSCAPE2.0) goes to the context. 1 at an image, 0 at the end, or a negative CLANES status.
 */
static int gif_next_image(clanes_frames *f, gif_control *control) {
    clanes_frames_state *s = f->state;
    *control = (gif_control){0, 0, -1};
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(s->gif, &type) == GIF_ERROR) {
            return -gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "records");
        }
        if (type == TERMINATE_RECORD_TYPE) {
            return 0;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageHeader(s->gif) == GIF_ERROR) {
                return -gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "frame header");
            }
            return 1;
        }
        if (type != EXTENSION_RECORD_TYPE) {
            clanes_set_message(f->message, sizeof f->message, "GIF has an unknown record");
            return -CLANES_ERR_CORRUPT;
        }
        int code = 0;
        GifByteType *block = NULL;
        if (DGifGetExtension(s->gif, &code, &block) == GIF_ERROR) {
            return -gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "extension");
        }
        int netscape = 0;
        if (block != NULL && code == GRAPHICS_EXT_FUNC_CODE && block[0] >= 4) {
            control->dispose = (block[1] >> 2) & 7;
            control->delay_cs = block[2] | (block[3] << 8);
            control->transparent = (block[1] & 1) ? block[4] : -1;
        } else if (block != NULL && code == APPLICATION_EXT_FUNC_CODE && block[0] == 11
                   && (memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0)) {
            netscape = 1;
        }
        while (block != NULL) {
            if (DGifGetExtensionNext(s->gif, &block) == GIF_ERROR) {
                return -gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "extension");
            }
            if (netscape && block != NULL && block[0] >= 3 && block[1] == 1) {
                f->out.loop_count = block[2] | (block[3] << 8);
                netscape = 0;
            }
        }
    }
}

/* Skips the current frame's LZW data without decoding it. */
static int32_t gif_skip_frame(clanes_frames *f) {
    clanes_frames_state *s = f->state;
    int code_size = 0;
    GifByteType *block = NULL;
    if (DGifGetCode(s->gif, &code_size, &block) == GIF_ERROR) {
        return gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "frame data");
    }
    while (block != NULL) {
        if (DGifGetCodeNext(s->gif, &block) == GIF_ERROR) {
            return gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "frame data");
        }
    }
    return CLANES_OK;
}

static int32_t gif_open(clanes_frames *f) {
    f->state = (clanes_frames_state *)calloc(1, sizeof(clanes_frames_state));
    if (f->state == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a GIF decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    int32_t status = gif_begin(f);
    if (status != CLANES_OK) {
        return status;
    }
    clanes_frames_state *s = f->state;
    f->out.canvas_width = (uint32_t)s->gif->SWidth;
    f->out.canvas_height = (uint32_t)s->gif->SHeight;
    f->out.width = f->out.canvas_width;
    f->out.height = f->out.canvas_height;
    /* The canvas, a copy for disposal 3, one row of indices. */
    f->out.held_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * 4 * 2 + 65536;
    f->out.frame_count = 1;
    status = clanes_frames_check_limits(f, "GIF", f->out.held_bytes);
    if (status != CLANES_OK) {
        return status;
    }
    /* The first pass: count the frames (their data skipped undecoded), stopping once over the limit. */
    uint32_t count = 0;
    int transparent = 0;
    for (;;) {
        gif_control control;
        int found = gif_next_image(f, &control);
        if (found < 0) return -found;
        if (found == 0) break;
        count++;
        if ((uint64_t)s->gif->Image.Width * (uint64_t)s->gif->Image.Height > f->max_pixels) {
            clanes_set_message(f->message, sizeof f->message, "GIF frame %u of %dx%d pixels exceeds the limit of %llu pixels",
                               count, s->gif->Image.Width, s->gif->Image.Height, (unsigned long long)f->max_pixels);
            return CLANES_ERR_TOO_LARGE;
        }
        transparent |= control.transparent >= 0 || s->gif->Image.Left != 0 || s->gif->Image.Top != 0
                       || (uint32_t)s->gif->Image.Width < f->out.canvas_width
                       || (uint32_t)s->gif->Image.Height < f->out.canvas_height;
        if (f->first_frame_only || (f->max_frames > 0 && count > f->max_frames)) break;
        status = gif_skip_frame(f);
        if (status != CLANES_OK) return status;
    }
    if (count == 0) {
        clanes_set_message(f->message, sizeof f->message, "GIF has no frames");
        return CLANES_ERR_CORRUPT;
    }
    f->out.frame_count = count;
    f->out.opaque = !transparent && count == 1;
    status = clanes_frames_check_limits(f, "GIF", f->out.held_bytes);
    if (status != CLANES_OK) {
        return status;
    }
    if (f->first_frame_only && f->out.opaque && f->scaled_width > 0 && f->scaled_height > 0
        && f->scaled_width <= f->out.canvas_width && f->scaled_height <= f->out.canvas_height) {
        uint32_t kx = f->out.canvas_width / f->scaled_width, ky = f->out.canvas_height / f->scaled_height;
        uint32_t k = kx < ky ? kx : ky;
        if (k >= 2) {
            s->shrink = k;
            f->out.width = (f->out.canvas_width + k - 1) / k;
            f->out.height = (f->out.canvas_height + k - 1) / k;
            size_t sums = (size_t)f->out.width * f->out.height * 3;
            f->out.held_bytes = sums * sizeof(uint32_t) + 65536;
            s->sums = (uint32_t *)calloc(sums, sizeof(uint32_t));
            s->line = (GifPixelType *)malloc(65536);
            if (s->sums == NULL || s->line == NULL) {
                clanes_set_message(f->message, sizeof f->message, "out of memory for a GIF thumbnail");
                return CLANES_ERR_NO_MEMORY;
            }
            return gif_begin(f);
        }
    }
    size_t canvas_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * 4;
    s->canvas = (uint8_t *)calloc(1, canvas_bytes);
    s->line = (GifPixelType *)malloc(65536);
    if (s->canvas == NULL || s->line == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a GIF canvas");
        return CLANES_ERR_NO_MEMORY;
    }
    return gif_begin(f);
}

/* Applies the disposal of the frame shown last. */
static void gif_dispose(clanes_frames *f) {
    clanes_frames_state *s = f->state;
    size_t stride = (size_t)f->out.canvas_width * 4;
    if (s->dispose == 2) {
        for (uint32_t y = s->top; y < s->bottom; y++) {
            memset(s->canvas + y * stride + (size_t)s->left * 4, 0, (size_t)(s->right - s->left) * 4);
        }
    } else if (s->dispose == 3 && s->previous != NULL) {
        memcpy(s->canvas, s->previous, stride * f->out.canvas_height);
    }
    s->dispose = 0;
}

/* Adds one decoded row of the (opaque, whole-canvas) first frame to the block sums of output row y / shrink. */
static void gif_sum_row(clanes_frames *f, const ColorMapObject *map, uint32_t y) {
    clanes_frames_state *s = f->state;
    uint32_t k = s->shrink;
    uint32_t *sums = s->sums + (size_t)(y / k) * f->out.width * 3;
    for (uint32_t ox = 0, x = 0; ox < f->out.width; ox++) {
        uint32_t r = 0, g = 0, b = 0;
        uint32_t end = x + k < f->out.canvas_width ? x + k : f->out.canvas_width;
        for (; x < end; x++) {
            int index = s->line[x];
            if (index >= map->ColorCount) continue; /* corrupt: black, where the canvas path leaves it clear */
            r += map->Colors[index].Red;
            g += map->Colors[index].Green;
            b += map->Colors[index].Blue;
        }
        sums[ox * 3] += r;
        sums[ox * 3 + 1] += g;
        sums[ox * 3 + 2] += b;
    }
}

/* Writes each block's mean, rounded (the blocks of the last row and column may be smaller). */
static void gif_write_means(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    clanes_frames_state *s = f->state;
    uint32_t k = s->shrink;
    for (uint32_t oy = 0; oy < f->out.height; oy++) {
        uint32_t rows = f->out.canvas_height - oy * k < k ? f->out.canvas_height - oy * k : k;
        const uint32_t *sums = s->sums + (size_t)oy * f->out.width * 3;
        uint8_t *out = pixels + (size_t)oy * bytes_per_row;
        for (uint32_t ox = 0; ox < f->out.width; ox++) {
            uint32_t columns = f->out.canvas_width - ox * k < k ? f->out.canvas_width - ox * k : k;
            uint32_t n = rows * columns;
            for (int c = 0; c < 3; c++) out[ox * 4 + (uint32_t)c] = (uint8_t)((sums[ox * 3 + (uint32_t)c] + n / 2) / n);
            out[ox * 4 + 3] = 255;
        }
    }
}

static int32_t gif_next(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    clanes_frames_state *s = f->state;
    if (s->shrink > 1 && f->frames_read > 0) {
        clanes_set_message(f->message, sizeof f->message, "a shrunk GIF hands out its first frame only");
        return CLANES_ERR_ARGUMENT;
    }
    gif_control control;
    int found = gif_next_image(f, &control);
    if (found < 0) return -found;
    if (found == 0) {
        clanes_set_message(f->message, sizeof f->message, "GIF has fewer frames than counted");
        return CLANES_ERR_CORRUPT;
    }
    gif_dispose(f);
    GifImageDesc *image = &s->gif->Image;
    const ColorMapObject *map = image->ColorMap != NULL ? image->ColorMap : s->gif->SColorMap;
    if (map == NULL || map->Colors == NULL) {
        clanes_set_message(f->message, sizeof f->message, "GIF frame %u has no colour table", f->frames_read + 1);
        return CLANES_ERR_CORRUPT;
    }
    size_t stride = (size_t)f->out.canvas_width * 4;
    if (control.dispose == 3 && s->shrink <= 1) {
        if (s->previous == NULL) {
            s->previous = (uint8_t *)malloc(stride * f->out.canvas_height);
            if (s->previous == NULL) {
                clanes_set_message(f->message, sizeof f->message, "out of memory for a GIF canvas");
                return CLANES_ERR_NO_MEMORY;
            }
        }
        memcpy(s->previous, s->canvas, stride * f->out.canvas_height);
    }
    uint32_t left = (uint32_t)image->Left, top = (uint32_t)image->Top;
    uint32_t width = (uint32_t)image->Width, height = (uint32_t)image->Height;
    if (width == 0 || height == 0) {
        int32_t status = gif_skip_frame(f);
        if (status != CLANES_OK) return status;
    }
    /* Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1. */
    static const uint32_t starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    uint32_t passes = image->Interlace ? 4 : 1;
    for (uint32_t pass = 0; pass < passes; pass++) {
        uint32_t first = image->Interlace ? starts[pass] : 0, step = image->Interlace ? steps[pass] : 1;
        for (uint32_t row = first; row < height; row += step) {
            if (DGifGetLine(s->gif, s->line, (int)width) == GIF_ERROR) {
                return gif_error(&s->reader, s->gif->Error, f->message, sizeof f->message, "frame data");
            }
            uint32_t y = top + row;
            if (y >= f->out.canvas_height) continue;
            if (s->shrink > 1) { /* opaque and covering the canvas: left 0, top 0, the canvas's width */
                gif_sum_row(f, map, y);
                continue;
            }
            uint8_t *out = s->canvas + (size_t)y * stride;
            for (uint32_t column = 0; column < width && left + column < f->out.canvas_width; column++) {
                int index = s->line[column];
                if (index == control.transparent || index >= map->ColorCount) continue;
                uint8_t *pixel = out + (size_t)(left + column) * 4;
                pixel[0] = map->Colors[index].Red;
                pixel[1] = map->Colors[index].Green;
                pixel[2] = map->Colors[index].Blue;
                pixel[3] = 255;
            }
        }
    }
    if (s->shrink > 1) {
        gif_write_means(f, pixels, bytes_per_row);
    } else {
        for (uint32_t y = 0; y < f->out.height; y++) {
            memcpy(pixels + (size_t)y * bytes_per_row, s->canvas + (size_t)y * stride, stride);
        }
    }
    s->dispose = control.dispose;
    s->left = left < f->out.canvas_width ? left : f->out.canvas_width;
    s->top = top < f->out.canvas_height ? top : f->out.canvas_height;
    s->right = left + width < f->out.canvas_width ? left + width : f->out.canvas_width;
    s->bottom = top + height < f->out.canvas_height ? top + height : f->out.canvas_height;
    f->delay_ms = control.delay_cs * 10;
    return CLANES_OK;
}

static void gif_close(clanes_frames *f) {
    clanes_frames_state *s = f->state;
    if (s->gif != NULL) DGifCloseFile(s->gif, NULL);
    free(s->canvas);
    free(s->previous);
    free(s->line);
    free(s->sums);
    free(s);
}

const clanes_frames_codec clanes_gif_codec = {gif_open, gif_next, gif_close};
