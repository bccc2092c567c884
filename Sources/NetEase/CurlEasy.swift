import CCurl
import CCurlShim

/// One libcurl easy handle with the options every transfer of the server shares (`HTTPConfiguration`): the one
/// place that knows libcurl's setopt calls, used by `HTTPClient` (requests) and `CurlInputStream` (streams).
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    let url: String
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var aliasList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message here (`Failed to connect to … port …: Connection refused`), which says
    /// more than `curl_easy_strerror`'s generic text.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// `curl_global_init` is not thread-safe on every libcurl build; a static let runs it exactly once.
    private static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// `protocols`: what libcurl may speak for `url` (`CURLOPT_PROTOCOLS_STR`); redirects stay on the web.
    init(url: String, configuration: HTTPConfiguration, protocols: String = "http,https") throws(HTTPError) {
        guard Self.globalInit, let handle = curl_easy_init() else {
            throw HTTPError(.other, url: url, "libcurl cannot be initialised")
        }
        self.handle = handle
        self.url = url
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        nosignal_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        guard nosignal_curl_setopt_string(handle, CURLOPT_URL, url) == CURLE_OK else {
            throw HTTPError(.invalidURL, url: url, "invalid URL")
        }
        // Signals cannot be used for DNS timeouts in a threaded process.
        set(CURLOPT_NOSIGNAL, 1)
        // Only the web (or the one protocol a stream asked for): a redirect to file:// or another protocol must not
        // reach the local disk.
        nosignal_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, protocols)
        nosignal_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        set(CURLOPT_FOLLOWLOCATION, configuration.maxRedirects > 0 ? 1 : 0)
        set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
        nosignal_curl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
        set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout * 1000))
        // A transfer that moves less than `lowSpeedLimit` bytes/s for `lowSpeedTime` s is a stall: it fails
        // instead of hanging (a paused transfer is exempt, so a full buffer is not a stall).
        if configuration.lowSpeedTime > 0 {
            set(CURLOPT_LOW_SPEED_LIMIT, max(1, configuration.lowSpeedLimit))
            set(CURLOPT_LOW_SPEED_TIME, configuration.lowSpeedTime)
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        curl_slist_free_all(aliasList)
        errorBuffer.deallocate()
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        nosignal_curl_setopt_long(handle, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        nosignal_curl_setopt_string(handle, option, value)
    }

    /// Replaces the request headers. `Name:` with nothing after the colon removes a header libcurl would add
    /// (`Expect:`).
    func setHeaders(_ headers: [HTTPHeader]) {
        curl_slist_free_all(headerList)
        headerList = nil
        for header in headers {
            let line = header.value.isEmpty ? "\(header.name):" : "\(header.name): \(header.value)"
            headerList = curl_slist_append(headerList, line)
        }
        nosignal_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList)
    }

    /// Status lines libcurl takes for `HTTP/1.0 200 OK`: Shoutcast v1 servers answer `ICY 200 OK`, which libcurl
    /// otherwise rejects as not HTTP.
    func acceptStatusLines(_ lines: [String]) {
        curl_slist_free_all(aliasList)
        aliasList = nil
        for line in lines { aliasList = curl_slist_append(aliasList, line) }
        nosignal_curl_setopt_pointer(handle, CURLOPT_HTTP200ALIASES, aliasList)
    }

    /// Sends `context` to the body and header callbacks; it must outlive the transfer.
    func setCallbacks(context: UnsafeMutableRawPointer, body: curl_write_callback, header: curl_write_callback) {
        nosignal_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, body)
        nosignal_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        nosignal_curl_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, header)
        nosignal_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
    }

    /// `CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`: the size libcurl learnt (FTP's `SIZE`, SFTP's stat), when it knows.
    var contentLength: Int64? {
        var value: curl_off_t = -1
        guard nosignal_curl_getinfo_offset(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &value) == CURLE_OK, value > 0
        else { return nil }
        return Int64(value)
    }

    /// The URL after redirects.
    var effectiveURL: String {
        var value: UnsafeMutablePointer<CChar>? = nil
        guard nosignal_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &value) == CURLE_OK, let value else {
            return url
        }
        return String(cString: value)
    }

    /// What went wrong, in libcurl's most specific words.
    func message(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }

    /// An `HTTPError` for a failed `curl_easy_perform` / multi transfer.
    func error(for code: CURLcode) -> HTTPError {
        HTTPError(HTTPError.Kind(code), url: url, message(for: code))
    }
}

extension HTTPError.Kind {
    init(_ code: CURLcode) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: self = .timeout
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: self = .invalidURL
        case CURLE_TOO_MANY_REDIRECTS: self = .tooManyRedirects
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT, CURLE_SEND_ERROR,
             CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_SSL_CONNECT_ERROR,
             CURLE_PEER_FAILED_VERIFICATION:
            self = .connection
        default: self = .other
        }
    }
}
