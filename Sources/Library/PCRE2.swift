#if canImport(Glibc)
import Glibc
#endif

/// PCRE2 (8-bit), loaded with `dlopen` from the system's `libpcre2-8.so.0`, so that `=~` behaves exactly as in
/// MPD (`src/lib/pcre/UniqueRegex.cxx`): `PCRE2_DOTALL | PCRE2_NO_AUTO_CAPTURE` (+ `PCRE2_CASELESS`), no
/// `PCRE2_UTF` (the pattern and the values are matched as bytes), and MPD's error text
/// `Error in regex at offset N: <pcre2 message>`. nil when the library is not installed; the caller then falls
/// back to `NSRegularExpression`.
final class PCRE2: @unchecked Sendable {
    private typealias Compile = @convention(c) (
        UnsafePointer<UInt8>?, Int, UInt32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int>?, OpaquePointer?
    ) -> OpaquePointer?
    private typealias CreateMatchData = @convention(c) (OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    private typealias Match = @convention(c) (
        OpaquePointer?, UnsafePointer<UInt8>?, Int, Int, UInt32, OpaquePointer?, OpaquePointer?
    ) -> Int32
    private typealias Free = @convention(c) (OpaquePointer?) -> Void
    private typealias ErrorMessage = @convention(c) (Int32, UnsafeMutablePointer<UInt8>?, Int) -> Int32
    private typealias JITCompile = @convention(c) (OpaquePointer?, UInt32) -> Int32

    static let dotAll: UInt32 = 0x0000_0020
    static let noAutoCapture: UInt32 = 0x0000_2000
    static let caseless: UInt32 = 0x0000_0008
    static let jitComplete: UInt32 = 0x0000_0001

    private let compile: Compile
    private let createMatchData: CreateMatchData
    private let match: Match
    private let freeCode: Free
    private let freeMatchData: Free
    private let errorMessage: ErrorMessage
    private let jitCompile: JITCompile?

    /// The library, or nil when it cannot be loaded.
    static let shared: PCRE2? = PCRE2()

    private init?() {
        guard let handle = dlopen("libpcre2-8.so.0", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func symbol<T>(_ name: String, _ type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let compile = symbol("pcre2_compile_8", Compile.self),
              let createMatchData = symbol("pcre2_match_data_create_from_pattern_8", CreateMatchData.self),
              let match = symbol("pcre2_match_8", Match.self),
              let freeCode = symbol("pcre2_code_free_8", Free.self),
              let freeMatchData = symbol("pcre2_match_data_free_8", Free.self),
              let errorMessage = symbol("pcre2_get_error_message_8", ErrorMessage.self)
        else { return nil }
        self.compile = compile
        self.createMatchData = createMatchData
        self.match = match
        self.freeCode = freeCode
        self.freeMatchData = freeMatchData
        self.errorMessage = errorMessage
        self.jitCompile = symbol("pcre2_jit_compile_8", JITCompile.self)
    }

    /// A compiled pattern; shared read-only between threads, with match data made per call.
    final class Code: @unchecked Sendable {
        let library: PCRE2
        let code: OpaquePointer

        fileprivate init(library: PCRE2, code: OpaquePointer) {
            self.library = library
            self.code = code
        }

        deinit { library.freeCode(code) }

        func matches(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { bytes in
                let data = library.createMatchData(code, nil)
                defer { library.freeMatchData(data) }
                // A C string to MPD: the value ends at its first NUL byte.
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                return library.match(code, bytes.baseAddress, length, 0, 0, data, nil) >= 0
            }
        }
    }

    /// The compiled pattern, or MPD's error text.
    func compile(_ pattern: String, caseless: Bool) -> Result<Code, RegexError> {
        var options = Self.dotAll | Self.noAutoCapture
        if caseless { options |= Self.caseless }
        var errorCode: Int32 = 0
        var errorOffset = 0
        var pattern = pattern
        let code = pattern.withUTF8 { bytes in
            compile(bytes.baseAddress, bytes.firstIndex(of: 0) ?? bytes.count, options, &errorCode, &errorOffset, nil)
        }
        guard let code else {
            var buffer = [UInt8](repeating: 0, count: 256)
            _ = errorMessage(errorCode, &buffer, buffer.count)
            let message = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
            return .failure(RegexError(message: "Error in regex at offset \(errorOffset): \(message)"))
        }
        _ = jitCompile?(code, Self.jitComplete)
        return .success(Code(library: self, code: code))
    }

    struct RegexError: Error {
        let message: String
    }
}
