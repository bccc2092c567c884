#include "CFFmpegShim.h"
#include <libavutil/error.h>
#include <libavutil/avutil.h>
#include <libavutil/opt.h>
#include <libavutil/replaygain.h>
#include <libavformat/avformat.h>

int nosignal_averror(int posix_error) { return AVERROR(posix_error); }
int nosignal_averror_eof(void) { return AVERROR_EOF; }
int64_t nosignal_av_nopts_value(void) { return AV_NOPTS_VALUE; }
int nosignal_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
int nosignal_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }

char *nosignal_av_opt_get_string(void *object, const char *name) {
    uint8_t *value = NULL;
    if (av_opt_get(object, name, AV_OPT_SEARCH_CHILDREN, &value) < 0) return NULL;
    return (char *)value;
}

int nosignal_stream_replaygain(const void *stream, int32_t *track_gain, uint32_t *track_peak,
                               int32_t *album_gain, uint32_t *album_peak) {
    size_t size = 0;
    const AVReplayGain *gain = (const AVReplayGain *)av_stream_get_side_data(stream, AV_PKT_DATA_REPLAYGAIN, &size);
    if (!gain || size < sizeof(AVReplayGain)) return -1;
    *track_gain = gain->track_gain;
    *track_peak = gain->track_peak;
    *album_gain = gain->album_gain;
    *album_peak = gain->album_peak;
    return 0;
}
