import Foundation
import NetEase
import ServerPorts

/// `albumart`/`readpicture` of a NetEase song: its album cover (`al.picUrl`), downloaded once and kept in the
/// cache directory, one file per album.
extension NetEaseCatalog {
    func cover(songID: Int64) async throws -> [UInt8] {
        try await call("cannot fetch the cover of song \(songID)") { try self.coverBytes(songID: songID) }
    }

    private func coverBytes(songID: Int64) throws -> [UInt8] {
        var known = service.knownCover(songID: songID)
        if known == nil {
            // A song not seen in this run (synced earlier, or named by URI): one detail request brings its cover.
            _ = service.remember(try service.gated { () throws(NetEaseError) in
                try service.client.songDetails(ids: [songID])
            })
            known = service.knownCover(songID: songID)
        }
        guard let known else { throw PortError.notFound("No file exists") }
        let directory = service.coverDirectory
        let file = directory + "/" + (known.album > 0 ? "album-\(known.album)" : "song-\(songID)")
        if let data = FileManager.default.contents(atPath: file), !data.isEmpty { return [UInt8](data) }
        let response: HTTPResponse
        do {
            response = try service.http.perform(HTTPRequest(known.url))
        } catch {
            throw NetEaseError(error, timeout: Double(service.settings.timeout))
        }
        guard response.status == 200, !response.body.isEmpty else {
            throw NetEaseError.http(status: response.status)
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? Data(response.body).write(to: URL(fileURLWithPath: file), options: .atomic)
        return response.body
    }

    /// The picture's MIME type from its first bytes (NetEase serves JPEG, sometimes PNG or WebP).
    static func mimeType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.count > 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        return nil
    }
}
