import Foundation
import Synchronization

/// One cookie as NetEase sets it. Its value is a login secret (`MUSIC_U`), so `description` never shows it.
public struct Cookie: Sendable, Equatable, Codable, CustomStringConvertible {
    public var name: String
    public var value: String
    /// nil: a session cookie, kept until replaced (a server has no browser session that ends).
    public var expires: Date?

    public init(name: String, value: String, expires: Date? = nil) {
        self.name = name
        self.value = value
        self.expires = expires
    }

    public var description: String { "\(name)=<redacted>" }

    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }
}

/// The NetEase cookies of the account: merged from every response's `Set-Cookie`, sent with every request, and
/// kept in a file (mode 0600, it holds the login) so a restart stays logged in.
///
/// Cookies are keyed by name only. NetEase sets some (`MUSIC_R_T`, `MUSIC_A_T`) several times with different
/// `Path`s and `Domain`s; the official web client and NCM drop those attributes too, and one value per name is
/// what the request layer needs. Thread-safe: the client may run requests on several worker threads.
public final class CookieJar: Sendable, CustomStringConvertible {
    private let cookies: Mutex<[String: Cookie]>
    /// Where the jar is saved after each change (nil: in memory only).
    public let file: String?

    /// An empty jar, or the one saved in `file` (expired cookies dropped). A missing file is an empty jar; an
    /// unreadable one throws, so a typo in `cookie_file` does not silently log the user out.
    public init(file: String? = nil, now: Date = Date()) throws {
        self.file = file
        cookies = Mutex(try Self.load(file, now: now))
    }

    /// Reads the file again: `nosignal login` in another process changed the login the server uses.
    public func reload(now: Date = Date()) throws {
        guard file != nil else { return }
        let loaded = try Self.load(file, now: now)
        cookies.withLock { $0 = loaded }
    }

    private static func load(_ file: String?, now: Date) throws -> [String: Cookie] {
        var loaded: [String: Cookie] = [:]
        if let file, FileManager.default.fileExists(atPath: file) {
            // A jar copied in by hand may be readable by others; it holds the login, so it is narrowed at once.
            var info = stat()
            if stat(file, &info) == 0, info.st_mode & 0o077 != 0 { chmod(file, 0o600) }
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            if !data.isEmpty {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .secondsSince1970
                for cookie in try decoder.decode([Cookie].self, from: data) where !cookie.isExpired(at: now) {
                    loaded[cookie.name] = cookie
                }
            }
        }
        return loaded
    }

    /// The live cookies, by name.
    public func values(now: Date = Date()) -> [String: String] {
        cookies.withLock { all in
            var result: [String: String] = [:]
            for (name, cookie) in all where !cookie.isExpired(at: now) { result[name] = cookie.value }
            return result
        }
    }

    public func value(_ name: String, now: Date = Date()) -> String? { values(now: now)[name] }

    public var names: [String] { cookies.withLock { $0.keys.sorted() } }

    /// Sets (or with an expiry in the past, deletes) cookies directly, e.g. an imported `MUSIC_U`.
    public func set(_ cookie: Cookie, now: Date = Date()) throws {
        try update { all in Self.apply(cookie, to: &all, now: now) }
    }

    /// Merges the `Set-Cookie` headers of one response and saves when something changed.
    public func merge(setCookieHeaders headers: [String], now: Date = Date()) throws {
        let parsed = headers.compactMap { Self.parse(setCookie: $0, now: now) }
        guard !parsed.isEmpty else { return }
        try update { all in
            for cookie in parsed { Self.apply(cookie, to: &all, now: now) }
        }
    }

    /// Forgets every cookie (logout).
    public func removeAll() throws {
        try update { $0.removeAll() }
    }

    public var description: String {
        let names = self.names
        return "CookieJar(\(names.count) cookies: \(names.joined(separator: ", ")); values redacted)"
    }

    // MARK: Merging

    private static func apply(_ cookie: Cookie, to all: inout [String: Cookie], now: Date) {
        if cookie.isExpired(at: now) {
            all[cookie.name] = nil
        } else {
            all[cookie.name] = cookie
        }
    }

    /// One `Set-Cookie` value: `name=value` then attributes. `Max-Age` wins over `Expires` (RFC 6265 §5.3);
    /// `Max-Age=0` or a past `Expires` means "delete". Quotes around the value are removed (NetEase sends
    /// `MUSIC_U=""` to log out).
    static func parse(setCookie header: String, now: Date) -> Cookie? {
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        guard !parts.isEmpty, let equals = parts[0].firstIndex(of: "=") else { return nil }
        let name = parts[0][..<equals].trimmingSpaces()
        guard !name.isEmpty else { return nil }
        var value = parts[0][parts[0].index(after: equals)...].trimmingSpaces()
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        parts.removeFirst()
        var maxAge: Int?
        var expires: Date?
        for attribute in parts {
            let pieces = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard let key = pieces.first?.lowercased(), pieces.count == 2 else { continue }
            switch key {
            case "max-age": maxAge = Int(pieces[1])
            case "expires": expires = parseDate(pieces[1])
            default: break
            }
        }
        if let maxAge { expires = now.addingTimeInterval(Double(maxAge)) }
        return Cookie(name: name, value: value, expires: expires)
    }

    /// `Expires` in the forms servers use: `Sat, 21 Nov 2026 18:55:00 GMT`, `Sat, 21-Nov-2026 18:55:00 GMT`.
    static func parseDate(_ text: String) -> Date? {
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz", "EEE, dd-MMM-yy HH:mm:ss zzz",
                       "EEEE, dd-MMM-yy HH:mm:ss zzz"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    // MARK: Persistence

    private func update(_ change: (inout [String: Cookie]) -> Void) throws {
        try cookies.withLock { all in
            let before = all
            change(&all)
            guard all != before, let file else { return }
            try Self.save(Array(all.values).sorted { $0.name < $1.name }, to: file)
        }
    }

    /// Writes the jar as a private file (mode 0600), whole or not at all.
    static func save(_ cookies: [Cookie], to file: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let data = try encoder.encode(cookies)
        do { try PrivateFile.write(data, to: file) } catch { throw CookieJarError(error.description) }
    }
}

public struct CookieJarError: Error, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
