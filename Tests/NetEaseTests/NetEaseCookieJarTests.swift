import Foundation
@testable import NetEase
import Testing

@Suite struct FormEncodingTests {
    @Test func base64CharactersArePercentEncoded() {
        #expect(FormEncoding.percentEncode("a+b/c=d") == "a%2Bb%2Fc%3Dd")
        #expect(FormEncoding.percentEncode("AZaz09-._~") == "AZaz09-._~")
        #expect(FormEncoding.percentEncode("a b&c") == "a%20b%26c")
        #expect(FormEncoding.percentEncode("周") == "%E5%91%A8")
        #expect(FormEncoding.encode([("params", "x+/="), ("encSecKey", "ab")]) == "params=x%2B%2F%3D&encSecKey=ab")
    }

    @Test func uriComponentKeepsWhatJavaScriptKeeps() {
        #expect(FormEncoding.uriComponent("a!*'()b c/") == "a!*'()b%20c%2F")
    }

    @Test func decodingRoundTrips() {
        let form = FormEncoding.encode([("params", "JVuA+Er2/Zl=="), ("s", "周杰伦 x")])
        #expect(FormEncoding.decode(form) == ["params": "JVuA+Er2/Zl==", "s": "周杰伦 x"])
    }
}

@Suite struct CookieJarTests {
    static func temporaryFile() -> String {
        NSTemporaryDirectory() + "nosignal-cookies-" + UUID().uuidString
    }

    @Test func parsesSetCookie() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let cookie = CookieJar.parse(setCookie: "MUSIC_U=abc; Max-Age=15552000; Expires=Tue, 14 May 2024 00:00:00 GMT; Path=/; HTTPOnly", now: now)
        #expect(cookie?.name == "MUSIC_U")
        #expect(cookie?.value == "abc")
        #expect(cookie?.expires == now.addingTimeInterval(15_552_000)) // Max-Age wins over Expires
        let expires = CookieJar.parse(setCookie: "__csrf=x; expires=Sat, 21-Nov-2099 18:55:00 GMT; path=/", now: now)
        #expect(expires?.expires == Date(timeIntervalSince1970: 4_098_970_500))
        #expect(CookieJar.parse(setCookie: "MUSIC_U=\"\"; Max-Age=0", now: now)?.value == "")
        #expect(CookieJar.parse(setCookie: "garbage", now: now) == nil)
    }

    @Test func mergesReplacesAndDeletes() throws {
        let jar = try CookieJar()
        let now = Date()
        try jar.merge(setCookieHeaders: ["MUSIC_U=one; Max-Age=100", "__csrf=c1; Path=/", "NMTID=n; Max-Age=1000"], now: now)
        #expect(jar.values(now: now) == ["MUSIC_U": "one", "__csrf": "c1", "NMTID": "n"])
        try jar.merge(setCookieHeaders: ["MUSIC_U=two; Max-Age=100; Path=/weapi"], now: now)
        #expect(jar.value("MUSIC_U", now: now) == "two")
        // Logout: an empty value that expired already, both ways NetEase writes it.
        try jar.merge(setCookieHeaders: ["MUSIC_U=\"\"; Max-Age=0", "__csrf=; Expires=Thu, 01 Jan 1970 00:00:00 GMT"], now: now)
        #expect(jar.values(now: now) == ["NMTID": "n"])
        // A cookie past its Max-Age is no longer sent.
        #expect(jar.values(now: now.addingTimeInterval(2000)).isEmpty)
    }

    @Test func persistsWithMode0600() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let now = Date()
        let jar = try CookieJar(file: file)
        try jar.merge(setCookieHeaders: ["MUSIC_U=secret; Max-Age=100", "__csrf=c; Max-Age=100", "gone=x; Max-Age=1"], now: now)
        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let reloaded = try CookieJar(file: file, now: now.addingTimeInterval(10))
        #expect(reloaded.values(now: now.addingTimeInterval(10)) == ["MUSIC_U": "secret", "__csrf": "c"])
        // The temporary files are gone.
        let directory = (file as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix((file as NSString).lastPathComponent + ".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test func aWideUmaskStillGives0600() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let old = umask(0)
        defer { umask(old) }
        let jar = try CookieJar(file: file)
        try jar.set(Cookie(name: "MUSIC_U", value: "v"))
        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func aWiderFileIsNarrowedOnLoad() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("[]".utf8).write(to: URL(fileURLWithPath: file))
        chmod(file, 0o644)
        _ = try CookieJar(file: file)
        var info = stat()
        #expect(stat(file, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func descriptionsNeverShowValues() throws {
        let jar = try CookieJar()
        try jar.merge(setCookieHeaders: ["MUSIC_U=topsecret; Max-Age=100"])
        #expect(!jar.description.contains("topsecret"))
        #expect(jar.description.contains("MUSIC_U"))
        #expect(!"\(Cookie(name: "MUSIC_U", value: "topsecret"))".contains("topsecret"))
    }

    @Test func aMissingFileIsAnEmptyJarAndAnUnreadableOneThrows() throws {
        #expect(try CookieJar(file: Self.temporaryFile()).values().isEmpty)
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: (any Error).self) { try CookieJar(file: file) }
    }
}
