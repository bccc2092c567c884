#include "CShim.h"
#include <libavutil/error.h>
#include <libavutil/avutil.h>

int nosignal_averror(int posix_error) { return AVERROR(posix_error); }
int nosignal_averror_eof(void) { return AVERROR_EOF; }
int64_t nosignal_av_nopts_value(void) { return AV_NOPTS_VALUE; }

CURLcode nosignal_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nosignal_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nosignal_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nosignal_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode nosignal_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
