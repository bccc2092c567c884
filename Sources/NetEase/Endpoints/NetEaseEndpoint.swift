/// One NetEase API call as a value: where it goes, how it is encrypted, what it sends and what comes back
/// (the shape of the NoSignal iOS app's `NeteaseCloudMusicAction`). `NetEaseClient.send` runs it. Paths and
/// parameters are what NetEase's own clients send; the group files name the
/// NCM module each one mirrors.
public protocol NetEaseEndpoint: Sendable {
    associatedtype Response: Decodable & Sendable
    /// Always `/api/…`; the crypto scheme rewrites it.
    var path: String { get }
    var crypto: RequestCrypto { get }
    var parameters: [String: JSONValue] { get }
    /// The `code`s that are an answer rather than an error (QR polling's 800–803).
    var acceptedCodes: Set<Int> { get }
    /// Client-identity cookies this endpoint needs (eapi `header`), e.g. `song_url_v1`'s Android identity.
    var cookieOverrides: [String: String] { get }
}

extension NetEaseEndpoint {
    public var crypto: RequestCrypto { .weapi }
    public var parameters: [String: JSONValue] { [:] }
    public var acceptedCodes: Set<Int> { [200] }
    public var cookieOverrides: [String: String] { [:] }
}

/// A response whose body says no more than its `code`.
public struct NetEaseEmptyResponse: Decodable, Sendable, Equatable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// Paging of the listing endpoints.
public struct NetEasePage: Sendable, Equatable {
    public var limit: Int
    public var offset: Int
    public init(limit: Int = 30, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }
}

extension KeyedDecodingContainer where Key == AnyKey {
    /// The self-hosted NeteaseCloudMusicApi wraps some bodies in `data`; reading through it
    /// lets one type serve both backends.
    func unwrappingData(unless keys: [String]) throws -> KeyedDecodingContainer<AnyKey> {
        if keys.contains(where: { contains(AnyKey($0)) }) { return self }
        if contains(AnyKey("data")), let inner = try? nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("data")),
           keys.contains(where: { inner.contains(AnyKey($0)) }) {
            return inner
        }
        return self
    }
}
