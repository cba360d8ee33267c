/*
 * The row decoder's core (rows_internal.h): the input (memory, or a regular file read with pread), the request's
 * checks, and the calls into the format's row part (png_rows.c, jpeg_rows.c), which holds the codec's state.
 */
#include "codecs_internal.h"
#include "rows_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t clanes_rows_read_input(clanes_row_decoder *d, uint8_t *out, size_t length) {
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

size_t clanes_rows_row_bytes(const clanes_row_decoder *d) {
    return (size_t)d->layout.width * (size_t)d->layout.channels * (size_t)d->layout.bytes_per_sample;
}

int32_t clanes_row_decoder_open(const clanes_row_request *request, clanes_row_decoder **decoder,
                                clanes_row_layout *layout, char *message, size_t message_capacity) {
    if (request == NULL || decoder == NULL || layout == NULL || request->part == NULL
        || (request->data == NULL) == (request->fd < 0)) {
        clanes_set_message(message, message_capacity, "a row decoder needs a part, and memory or a descriptor");
        return CLANES_ERR_ARGUMENT;
    }
    *decoder = NULL;
    const clanes_row_part *part = request->part;
    clanes_row_request checked = *request;
    checked.scale_denom = request->scale_denom == 0 ? 1 : request->scale_denom;
    checked.channels = request->channels == 0 ? 4 : request->channels;
    checked.bytes_per_sample = request->bytes_per_sample == 0 ? 1 : request->bytes_per_sample;
    int32_t scale_denom = checked.scale_denom, channels = checked.channels;
    int32_t bytes_per_sample = checked.bytes_per_sample;
    if (scale_denom != 1 && (!part->scales || (scale_denom != 2 && scale_denom != 4 && scale_denom != 8))) {
        clanes_set_message(message, message_capacity, "scale 1/%d is not available for this format", scale_denom);
        return CLANES_ERR_ARGUMENT;
    }
    if ((channels != 1 && channels != 2 && channels != 4) || (bytes_per_sample != 1 && bytes_per_sample != 2)
        || (!part->any_layout && (channels != 4 || bytes_per_sample != 1))) {
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
    d->part = part;
    d->data = request->data;
    d->fd = request->fd;
    d->size = request->size;
    d->message = message;
    d->capacity = message_capacity;
    int32_t status = part->open(d, &checked);
    if (status == CLANES_OK && (d->layout.width == 0 || d->layout.height == 0)) {
        clanes_set_message(message, message_capacity, "empty image");
        status = CLANES_ERR_CORRUPT;
    }
    *layout = d->layout;
    return status;
}

int32_t clanes_row_decoder_read(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count,
                                char *message, size_t message_capacity) {
    if (d == NULL || rows == NULL || bytes_per_row < clanes_rows_row_bytes(d)
        || count > d->layout.height - d->next_row) {
        clanes_set_message(message, message_capacity, "bad rows for a row decoder (%u of %u left)",
                           d ? d->layout.height - d->next_row : 0, d ? d->layout.height : 0);
        return CLANES_ERR_ARGUMENT;
    }
    d->message = message;
    d->capacity = message_capacity;
    int32_t status = d->part->read(d, rows, bytes_per_row, count);
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
    d->part->close(d);
    free(d);
}
