import Foundation

/// The command line tools the tests compare against or need: ffmpeg and ffprobe (the reference decoders),
/// openssl (test key pairs), qrencode. One place to run them, for every test target.
public enum CommandLineTool {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `arguments` (the tool first, found on PATH) and returns its standard output; throws when it fails, with
    /// what it wrote to standard error.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        // A file, not a pipe: a tool that writes much to both would otherwise block on the one not being read.
        let errorPath = NSTemporaryDirectory() + "nosignal-tool-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = FileManager.default.contents(atPath: errorPath).map { String(decoding: $0, as: UTF8.self) } ?? ""
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(errors)")
        }
        return data
    }

    /// A fresh RSA-1024 key pair as PEM texts, made by openssl: the test stand-in for NetEase's weapi key (the
    /// client is given the public half through `weapi_public_key`, the fake server keeps the private half).
    public static func rsaKeyPair() throws -> (publicPEM: String, privatePEM: String) {
        let directory = NSTemporaryDirectory() + "nosignal-rsa-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try run(["openssl", "genrsa", "-out", directory + "/private.pem", "1024"])
        try run(["openssl", "rsa", "-in", directory + "/private.pem", "-pubout", "-out", directory + "/public.pem"])
        return (try String(contentsOfFile: directory + "/public.pem", encoding: .utf8),
                try String(contentsOfFile: directory + "/private.pem", encoding: .utf8))
    }
}
