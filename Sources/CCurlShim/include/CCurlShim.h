/// The curl items Swift cannot import: the variadic curl_easy_setopt / curl_easy_getinfo.
#ifndef NOSIGNAL_CCURLSHIM_H
#define NOSIGNAL_CCURLSHIM_H

#include <curl/curl.h>

/// Typed wrappers around the variadic curl_easy_setopt / curl_easy_getinfo.
CURLcode nosignal_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode nosignal_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode nosignal_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode nosignal_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode nosignal_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode nosignal_curl_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
/// The protocols of the linked libcurl (`curl_version_info(CURLVERSION_NOW)->protocols`, lowercase, NULL-ended):
/// CURLVERSION_NOW is a macro.
const char *const *nosignal_curl_protocols(void);
CURLcode nosignal_curl_getinfo_string(CURL *handle, CURLINFO info, char **value);
/// CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION (same signature): a function pointer passed through the
/// variadic setopt with its real type.
CURLcode nosignal_curl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback);

#endif
