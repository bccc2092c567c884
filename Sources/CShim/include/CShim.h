/// The few C items Swift cannot import: function-like and compound-literal macros,
/// and variadic functions. Everything else is used directly through the system targets.
#ifndef NOSIGNAL_CSHIM_H
#define NOSIGNAL_CSHIM_H

#include <stdint.h>
#include <curl/curl.h>

/// FFmpeg's AVERROR(e) / AVERROR_EOF / AV_NOPTS_VALUE.
int nosignal_averror(int posix_error);
int nosignal_averror_eof(void);
int64_t nosignal_av_nopts_value(void);

/// Typed wrappers around the variadic curl_easy_setopt / curl_easy_getinfo.
CURLcode nosignal_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode nosignal_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode nosignal_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode nosignal_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode nosignal_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
