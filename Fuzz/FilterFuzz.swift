#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer target for the filter parser. Built into the same module as `Sources/MPDProtocol` (see
/// `Fuzz/run.sh`), so it needs no import.
///
/// The input is fed as one expression argument and, tokenized like a request line, as the argument list of
/// every filter command. Properties checked besides "does not crash":
/// * every filter error is `ACK 2` with a message that went through `GetFullMessage` (no blank runs);
/// * printing a parsed tree back as an expression and parsing that gives the same tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)

    for foldCase in [false, true] {
        check([text], foldCase: foldCase)
        check(["(" + text], foldCase: foldCase)
    }
    _ = try? FilterParser.parseTimestamp(text)
    _ = try? FilterParser.parseAudioFormat(text, mask: true)
    _ = try? FilterParser.parseAudioFormat(text, mask: false)

    guard case .request(let request) = Tokenizer.tokenize(Tokenizer.stripTrailingWhitespace(bytes)) else { return 0 }
    check(request.arguments, foldCase: request.command.hasPrefix("s"))
    for command in FilterCommand.allCases {
        _ = try? FilterParser.parseQuery(arguments: request.arguments, command: command)
    }
    _ = try? FilterParser.parseCount(arguments: request.arguments, foldCase: false)
    _ = try? FilterParser.parseList(arguments: request.arguments)
    return 0
}

private func check(_ arguments: [String], foldCase: Bool) {
    let expression: FilterExpression
    do {
        expression = try FilterParser.parse(arguments: arguments, foldCase: foldCase)
    } catch {
        require(error.code == .arg, "filter error with code \(error.code)")
        require(FilterParser.sanitize(error.message) == error.message, "unsanitized: \(error.message)")
        return
    }
    guard let printed = render(expression) else { return }
    do {
        let reparsed = try FilterParser.parse(arguments: [printed], foldCase: foldCase)
        require(reparsed == expression, "round trip changed \(expression) into \(reparsed) via \(printed)")
    } catch {
        require(false, "round trip of \(expression) failed: \(printed) → \(error)")
    }
}

/// Prints a tree in expression syntax, with explicit `_cs`/`_ci` operators so the case rule survives. `nil` for
/// what only legacy pairs produce (`.nothing`, values over 4095 bytes).
private func render(_ expression: FilterExpression) -> String? {
    switch expression {
    case .tag(let selector, let match):
        // Legacy pairs have no length limit; expression values do.
        guard match.value.utf8.count <= FilterParser.maximumValueLength else { return nil }
        let name: String
        switch selector {
        case .tag(let tag): name = tag.mpdName
        case .any: name = "any"
        case .file: name = "file"
        }
        let suffix = match.foldCase ? "_ci" : "_cs"
        let op: String
        switch match.kind {
        case .equals: op = "eq" + suffix
        case .contains: op = "contains" + suffix
        case .startsWith: op = "starts_with" + suffix
        case .regex: op = "=~"
        }
        let negation = match.negated ? (match.kind == .regex ? "!~" : "!" + op) : op
        return "(\(name) \(negation) \(quote(match.value)))"
    case .not(let inner):
        return render(inner).map { "(!\($0))" }
    case .and(let items):
        guard items.count >= 2 else { return nil }
        var parts: [String] = []
        for item in items {
            guard let part = render(item) else { return nil }
            parts.append(part)
        }
        return "(" + parts.joined(separator: " AND ") + ")"
    case .base(let value):
        guard value.utf8.count <= FilterParser.maximumValueLength else { return nil }
        return "(base \(quote(value)))"
    case .modifiedSince(let time):
        return "(modified-since \(quote(unixTime(time))))"
    case .addedSince(let time):
        return "(added-since \(quote(unixTime(time))))"
    case .audioFormat(let format):
        let rate = format.sampleRate == 0 ? "*" : String(format.sampleRate)
        let channels = format.channels == 0 ? "*" : String(format.channels)
        return "(AudioFormat =~ \"\(rate):\(format.sampleFormat?.rawValue ?? "*"):\(channels)\")"
    case .priority(let value):
        return "(prio >= \(value))"
    case .nothing:
        return nil
    }
}

private func quote(_ value: String) -> String {
    var result = "\""
    for character in value.unicodeScalars {
        if character == "\"" || character == "\\" { result += "\\" }
        result.unicodeScalars.append(character)
    }
    return result + "\""
}

/// A sign keeps `strptime` away (`20240102` alone would be read as a date) and `strtoull` wraps negatives back.
private func unixTime(_ time: Int64) -> String {
    time < 0 ? "-\(time.magnitude)" : "+\(time)"
}

/// A failed property: says which on stderr (optimised builds drop `precondition` messages), then aborts so that
/// libFuzzer records the input.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    fputs("fuzz property violated: \(message())\n", stderr)
    abort()
}
