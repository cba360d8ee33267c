/*
 * AVIF output through libavif (Debian's, built with libaom): 8-bit 4:2:0 YUV, alpha as a second image when asked.
 * Quality maps to the quantizer as libavif 1.x's own `quality` does: quantizer = (100 - quality) * 63 / 100.
 */
#include "clanes_codecs.h"
#include "whole_stream_internal.h"

#include <avif/avif.h>

/* The largest side encoded: AV1's frame size is 16 bits per side. */
#define CLANES_AVIF_MAX_SIDE 65535u

static int32_t clanes_avif_encode(const clanes_whole_stream *stream, clanes_buffer *output, char *message,
                                  size_t capacity) {
    const clanes_whole_encode_options *options = &stream->options;
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
    rgb.pixels = stream->canvas;
    rgb.rowBytes = options->width * 4;
    avifResult result = avifImageRGBToYUV(image, &rgb);
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
    if (!clanes_buffer_append(output, encoded.data, encoded.size)) {
        clanes_set_message(message, capacity, "out of memory for the %zu-byte AVIF", encoded.size);
        status = CLANES_ERR_NO_MEMORY;
    }
done:
    avifRWDataFree(&encoded);
    if (encoder != NULL) avifEncoderDestroy(encoder);
    if (image != NULL) avifImageDestroy(image);
    return status;
}

int32_t clanes_avif_stream_begin(const clanes_whole_encode_options *options, clanes_whole_stream **stream,
                                 char *message, size_t message_capacity) {
    if (options != NULL) {
        if (options->effort < 0 || options->effort > 9) {
            clanes_set_message(message, message_capacity, "AVIF effort %d is not 0...9", options->effort);
            return CLANES_ERR_ARGUMENT;
        }
        if (options->lossless) {
            clanes_set_message(message, message_capacity, "lossless AVIF is not supported");
            return CLANES_ERR_ARGUMENT;
        }
        if (options->threads < 1 || options->threads > 64) {
            clanes_set_message(message, message_capacity, "AVIF threads %d is not 1...64", options->threads);
            return CLANES_ERR_ARGUMENT;
        }
    }
    return clanes_whole_stream_create(options, CLANES_AVIF_MAX_SIDE, "AVIF", clanes_avif_encode, stream, message,
                                      message_capacity);
}
