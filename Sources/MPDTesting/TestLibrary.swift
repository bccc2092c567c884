import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The generated test music library that differential scripts ask for with `%library`.
///
/// `Tests/Support/make_library.sh` builds it with the ffmpeg CLI: tagged mp3/flac/ogg/opus/m4a/wav
/// clips of a second or two in nested folders with unicode, quote- and backslash-laden names,
/// a `cover.jpg`, embedded pictures, multi-valued tags, untagged files, a corrupt `.mp3`, a text file,
/// an empty folder, a `.m3u` in a folder, and fixed modification times (`touch -d`). The generator is
/// bit-exact, so every run (and every server) sees the same bytes and the same `Last-Modified:`.
///
/// Both servers of a comparison get `music_directory` pointing at the same tree (they only read it);
/// each keeps its own playlist directory, database and sticker file. The tree is generated once per
/// content of the generator script and cached in the temporary directory
/// (`nosignal-testlib-<hash>/music`), so repeated runs cost nothing.
public enum TestLibrary {
    public struct GenerationError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Names accepted by `%library NAME` (the default is `standard`). `international` is a few thousand tiny
    /// songs in folders named in many scripts, for MPD's collation order (`make_international_library.py`).
    public static let names: Set<String> = ["standard", "international"]

    /// `MAKE_LIBRARY`, else `<package root>/Tests/Support/make_library.sh` (package root from this
    /// file's path).
    public static var generatorPath: String { generatorPath(for: "standard") }

    /// `<package root>/Tests/Support`: the generators and the helpers `!sh` steps call (as `$SUPPORT`).
    public static var supportDirectory: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Support").path
    }

    /// The generator of the named library.
    public static func generatorPath(for name: String) -> String {
        if name == "standard", let explicit = ProcessInfo.processInfo.environment["MAKE_LIBRARY"], !explicit.isEmpty {
            return explicit
        }
        let file = name == "international" ? "make_international_library.py" : "make_library.sh"
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Support/\(file)").path
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var ready: [String: String] = [:]

    /// The music directory of the named library, generating it first if needed. Safe to call from
    /// several threads and processes at once (generation goes to a private folder that is renamed
    /// into place; the loser of a race throws its copy away).
    public static func musicDirectory(named name: String = "standard") throws -> String {
        guard names.contains(name) else {
            throw GenerationError(description: "unknown test library \"\(name)\" (known: \(names.sorted().joined(separator: ", ")))")
        }
        lock.lock()
        defer { lock.unlock() }
        if let path = ready[name] { return path }
        let generator = generatorPath(for: name)
        guard let script = FileManager.default.contents(atPath: generator) else {
            throw GenerationError(description: "cannot read the library generator \(generator)")
        }
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("nosignal-testlib-\(name)-\(fnv1a(script))").path
        let music = base + "/music"
        if !FileManager.default.fileExists(atPath: base + "/complete") {
            try generate(generator: generator, into: base)
        }
        ready[name] = music
        return music
    }

    private static func generate(generator: String, into base: String) throws {
        let staging = base + ".tmp-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.removeItem(atPath: staging)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: staging) }

        let outcome: Subprocess.Outcome
        do {
            let interpreter = generator.hasSuffix(".py") ? "/usr/bin/python3" : "/bin/bash"
            outcome = try Subprocess.run([interpreter, generator, staging + "/music"])
        } catch {
            throw GenerationError(description: "cannot run \(generator): \(error)")
        }
        guard outcome.status == 0 else {
            throw GenerationError(description: """
                \(generator) failed (status \(outcome.status)); it needs ffmpeg and python3 \
                (apt-get install -y ffmpeg):
                \(outcome.standardError)
                """)
        }
        _ = FileManager.default.createFile(atPath: staging + "/complete", contents: Data())
        if rename(staging, base) != 0 {
            // Another process won the race (or an incomplete copy is in the way).
            if !FileManager.default.fileExists(atPath: base + "/complete") {
                try? FileManager.default.removeItem(atPath: base)
                guard rename(staging, base) == 0 else {
                    throw GenerationError(description: "cannot move the generated library to \(base): errno \(errno)")
                }
            }
        }
    }

    /// A stable 64-bit FNV-1a hash, hex.
    static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
