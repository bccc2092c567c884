#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer target for the request tokenizer and the typed argument parsers. Built into the same module as
/// `Sources/MPDProtocol` (see `Fuzz/run.sh`), so it needs no import.
///
/// Besides "does not crash", it checks one property: re-quoting the arguments the way libmpdclient does
/// (`"…"` with `"` and `\` escaped) and tokenizing again gives the same request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let line = Tokenizer.stripTrailingWhitespace(bytes)
    guard case .request(let request) = Tokenizer.tokenize(line) else { return 0 }
    require(!request.command.isEmpty && request.arguments.count <= Tokenizer.maximumArguments, "\(request)")

    var quoted = Array(request.command.utf8)
    for argument in request.rawArguments {
        quoted.append(contentsOf: Array(" \"".utf8))
        for byte in argument {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { quoted.append(UInt8(ascii: "\\")) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "\""))
    }
    require(Tokenizer.tokenize(quoted) == .request(request), "re-quoted \(request) differs")

    for argument in request.arguments {
        _ = try? Bool(mpdArgument: argument)
        _ = try? Int32(mpdArgument: argument)
        _ = try? UInt32(mpdArgument: argument)
        _ = try? Float(mpdArgument: argument)
        _ = try? SongTimeArgument(mpdArgument: argument)
        _ = try? MPDInteger.parseUnsigned(argument)
        if let range = try? RangeArgument(mpdArgument: argument) {
            require(range.start >= 0 && (range.end ?? range.start) >= range.start, "range \(range)")
        }
        if let position = try? PositionArgument(mpdArgument: argument) {
            _ = try? position.resolve(queueLength: 10, current: 3)
            _ = try? position.resolve(queueLength: 0, current: nil)
        }
    }
    return 0
}

/// A failed property: says which on stderr (optimised builds drop `precondition` messages), then aborts so that
/// libFuzzer records the input.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    fputs("fuzz property violated: \(message())\n", stderr)
    abort()
}
