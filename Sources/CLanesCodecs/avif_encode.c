/*
 * AVIF output through libavif (Debian's, built with libaom): 8-bit 4:2:0 YUV, alpha as a second image when asked.
 * Quality maps to the quantizer as libavif 1.x's own `quality` does: quantizer = (100 - quality) * 63 / 100. One part of
 * the one encoder (encoder_internal.h): the canvas is gathered by canvas_encoder.c.
 */
#include "encoder_internal.h"

#include <avif/avif.h>

/* The largest side encoded: AV1's frame size is 16 bits per side. */
#define CLANES_AVIF_MAX_SIDE 65535u

static int32_t clanes_avif_check(const clanes_encode_options *options, char *message, size_t capacity) {
    if (options->lossless) {
        clanes_set_message(message, capacity, "lossless AVIF is not supported");
        return CLANES_ERR_ARGUMENT;
    }
    if (options->threads < 1 || options->threads > 64) {
        clanes_set_message(message, capacity, "AVIF threads %d is not 1...64", options->threads);
        return CLANES_ERR_ARGUMENT;
    }
    return clanes_canvas_check(options, "AVIF", 9, message, capacity);
}

static int32_t clanes_avif_end(clanes_encoder *e) {
    const clanes_encode_options *options = &e->options;
    char *message = e->message;
    size_t capacity = e->capacity;
    avifImage *image = avifImageCreate(options->width, options->height, 8, AVIF_PIXEL_FORMAT_YUV420);
    avifEncoder *encoder = avifEncoderCreate();
    avifRWData encoded = AVIF_DATA_EMPTY;
    int32_t status = CLANES_OK;
    if (image == NULL || encoder == NULL) {
        clanes_set_message(message, capacity, "out of memory creating the AVIF encoder");
        status = CLANES_ERR_NO_MEMORY;
        goto done;
    }
    image->yuvRange = AVIF_RANGE_FULL;
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.ignoreAlpha = options->has_alpha ? AVIF_FALSE : AVIF_TRUE;
    rgb.pixels = (uint8_t *)clanes_canvas_pixels(e);
    rgb.rowBytes = options->width * 4;
    avifResult result = avifImageRGBToYUV(image, &rgb);
    clanes_canvas_release(e);   /* converted: the RGBA pixels are no longer needed */
    if (result != AVIF_RESULT_OK) {
        clanes_set_message(message, capacity, "AVIF colour conversion failed: %s", avifResultToString(result));
        status = CLANES_ERR_ENCODE;
        goto done;
    }
    int quantizer = ((100 - options->quality) * 63 + 50) / 100;
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = quantizer;
    encoder->maxQuantizerAlpha = quantizer;
    encoder->speed = 9 - options->effort; /* effort 0...9: AV1 speed 9 (fastest) ... 0, as libvips maps it */
    encoder->maxThreads = options->threads;
    result = avifEncoderWrite(encoder, image, &encoded);
    if (result != AVIF_RESULT_OK) {
        clanes_set_message(message, capacity, "AVIF encoding failed: %s", avifResultToString(result));
        status = result == AVIF_RESULT_OUT_OF_MEMORY ? CLANES_ERR_NO_MEMORY : CLANES_ERR_ENCODE;
        goto done;
    }
    if (!clanes_encoder_emit(e, encoded.data, encoded.size)) {
        status = CLANES_ERR_IO;   /* encoder.c names the failed write or the lack of memory */
    }
done:
    avifRWDataFree(&encoded);
    if (encoder != NULL) avifEncoderDestroy(encoder);
    if (image != NULL) avifImageDestroy(image);
    return status;
}

const clanes_encoder_format clanes_avif_encoder_format = {
    "AVIF", CLANES_AVIF_MAX_SIDE, clanes_avif_check, clanes_canvas_start, clanes_canvas_rows, clanes_avif_end,
    clanes_canvas_release,
};
