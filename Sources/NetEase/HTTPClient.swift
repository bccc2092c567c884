import CCurl
import CShim

/// The libcurl wrapper's entry point. Requests come with the NetEase client; for now it proves libcurl links.
public enum HTTPClient {
    /// libcurl's version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.…`.
    public static var version: String { String(cString: curl_version()) }
}
