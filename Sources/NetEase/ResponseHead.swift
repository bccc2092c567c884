/// A response's status line and headers.
struct ResponseHead: Sendable {
    var status = 0
    var reason = ""
    var headers: [HTTPHeader] = []

    /// The first header of that name (case-insensitive).
    func value(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// `404 Not Found`.
    var statusText: String { reason.isEmpty ? "\(status)" : "\(status) \(reason)" }
}

/// Assembles the final response's head from libcurl's header callback, which delivers one line per call and also
/// shows the heads of interim responses (`100 Continue`) and of the redirects libcurl follows: those are dropped,
/// so the headers describe the body that follows.
struct ResponseHeadParser {
    private var current = ResponseHead()
    private var started = false
    let followsRedirects: Bool

    init(followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
    }

    /// Feeds one header line (with or without its CRLF); returns the head when the blank line ends a final one.
    mutating func feed(_ raw: UnsafeRawBufferPointer) -> ResponseHead? {
        var line = Substring(String(decoding: raw, as: UTF8.self))
        while let last = line.last, last.isNewline { line = line.dropLast() } // "\r\n" is one Character
        if line.isEmpty {
            guard started else { return nil }
            let head = current
            current = ResponseHead()
            started = false
            if (100..<200).contains(head.status) { return nil }
            if followsRedirects, (300..<400).contains(head.status), head.value("location") != nil { return nil }
            return head
        }
        // Shoutcast v1 answers `ICY 200 OK`.
        if line.hasPrefix("HTTP/") || line.hasPrefix("ICY ") {
            current = ResponseHead()
            started = true
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            current.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            current.reason = parts.count > 2 ? String(parts[2]) : ""
            return nil
        }
        guard started else { return nil }
        if let first = line.first, first == " " || first == "\t", !current.headers.isEmpty {
            // An obsolete folded continuation line.
            current.headers[current.headers.count - 1].value += " " + line.trimmingSpaces()
            return nil
        }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        current.headers.append(HTTPHeader(String(line[..<colon].trimmingSpaces()),
                                          String(line[line.index(after: colon)...].trimmingSpaces())))
        return nil
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last.isNewline { text = text.dropLast() }
        return String(text)
    }
}
