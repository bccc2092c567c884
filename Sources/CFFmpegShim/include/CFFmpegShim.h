/// The FFmpeg items Swift cannot import: function-like and compound-literal macros, and headers the CFFmpeg module
/// does not cover. Everything else is used directly through CFFmpeg.
#ifndef NOSIGNAL_CFFMPEGSHIM_H
#define NOSIGNAL_CFFMPEGSHIM_H

#include <stdint.h>

/// FFmpeg's AVERROR(e) / AVERROR_EOF / AV_NOPTS_VALUE.
int nosignal_averror(int posix_error);
int nosignal_averror_eof(void);
int64_t nosignal_av_nopts_value(void);
/// AVERROR_DECODER_NOT_FOUND / AVERROR_INVALIDDATA (FFERRTAG macros).
int nosignal_averror_decoder_not_found(void);
int nosignal_averror_invaliddata(void);
/// av_opt_get with AV_OPT_SEARCH_CHILDREN (libavutil/opt.h is not in the CFFmpeg module): an av_malloc'ed string
/// to av_free, or NULL.
char *nosignal_av_opt_get_string(void *object, const char *name);
/// The AV_PKT_DATA_REPLAYGAIN side data of an AVStream (libavutil/replaygain.h is not in the CFFmpeg module).
/// Returns 0 when present; gains are microbels (INT32_MIN: unknown), peaks 1/100000 (0: unknown).
int nosignal_stream_replaygain(const void *stream, int32_t *track_gain, uint32_t *track_peak,
                               int32_t *album_gain, uint32_t *album_peak);

#endif
