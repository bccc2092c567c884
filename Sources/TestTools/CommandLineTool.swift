import Foundation

/// The command line tools the tests compare against or need: ffmpeg and ffprobe (the reference decoders),
/// openssl (test key pairs), qrencode. One place to run them, for every test target.
public enum CommandLineTool {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `arguments` (the tool first, found on PATH) and returns its standard output; throws when it fails.
    @discardableResult
    public static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
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
