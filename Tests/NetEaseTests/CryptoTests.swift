import Foundation
import TestTools
import NetEase
import Testing

/// The vectors of the reference, computed three independent ways there.
@Suite struct CryptoTests {
    @Test func weapiWithTheFixedKey() {
        let (params, encSecKey) = NetEaseCrypto.weapi(#"{"csrf_token":""}"#, secretKey: "FFFFFFFFFFFFFFFF")
        #expect(params == "JVuAEr2ZlmUJ9xO+Mk4lD9Ow39IpFtNiAVcHLFRQjNLfAy7urPEjL8+OHdmNoC7k")
        #expect(encSecKey == "257348aecb5e556c066de214e531faadd1c55d814f9be95fd06d6bff9f4c7a41f831f6394d5a3fd2e3881736d94a02ca919d952872e7d0a50ebfa1769a7a62d512f5f1ca21aec60bc3819a9c3ffca5eca9a0dba6d6f7249b06f5965ecfff3695b54e1c28f3f624750ed39e7de08fc8493242e26dbc4484a01c76f739e135637c")
    }

    @Test func weapiSongURL() {
        let (params, encSecKey) = NetEaseCrypto.weapi(#"{"ids":"[347230]","br":999000,"csrf_token":""}"#,
                                                      secretKey: "0123456789abcdef")
        #expect(params == "5RzDOeVWxD8PGD5eX0lAWLc1Z44RSPxKn5YQwqlFvt1HUFtJ+8ElMdXVINOAef9tDXIVFf0Iz7IJ5uIcncwYjBL9JcHl7psVFnafql8pNpI=")
        #expect(encSecKey == "35701388baf89fed412e11269b9c76625d095ecaf17f03fa018abe19ea2d38b949debf242ee39a71ca1f6cda71b1b86a45aa909ee27f7e78e267d34e732f0de948206c3340a788d0003372183e2f753c1f78b66ac23d134ac1fc9b993156520ea826b8aa89a962d4491b4b8d7e08738e1da9b07aa39bf4a7ef0b1c210728cd52")
    }

    @Test func weapiThirdVector() {
        let (params, encSecKey) = NetEaseCrypto.weapi(#"{"type":1,"csrf_token":""}"#, secretKey: "abcdefghijklmnop")
        #expect(params == "3BlaycWdpARV7MWFmPdWmzbbD4ez+q35HH/Pybwuh4f9AuA9ZsqUZppRPi8ohPCD")
        #expect(encSecKey == "d15a1683c992095d0c234c19966605c5c5964911268bbeda8cb8d08d834913e59d53b32358903a121b5fca784c1f5ae44951fd02524df58ecc98e52cc7cf8689b42c2e93ddf05b0592512d87f5960467e2f086c018849d76014d323500e30f13ef4cafbb0cf5a66731a3f1776c75ca35d0062dac70a3e33245afabcf47938487")
    }

    @Test func weapiRandomKeysAreBase62AndPadded() {
        let (_, encSecKey) = NetEaseCrypto.weapi(#"{"csrf_token":""}"#)
        #expect(encSecKey.count == 256)
        #expect(encSecKey.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }

    @Test func eapiSongURL() throws {
        let text = #"{"ids":"[347230]","level":"standard","encodeType":"flac"}"#
        #expect(NetEaseCrypto.md5Hex(Array("nobody/api/song/enhance/player/url/v1use\(text)md5forencrypt".utf8))
                == "bd8f19d46bbcaa3ee18f3b75fde6d141")
        let params = NetEaseCrypto.eapi(path: "/api/song/enhance/player/url/v1", text: text)
        #expect(params == "FA90B329E9614F79E79598F37DC2EDB487F00D1BC4C9B24CD57E6C318B9073569338432CD7D98D1A3626E997A2C53121C461EE0E88D3D1BF3F42E78643807A29B83D00D24CECA2C01F229A64E4D80CBB43B3579770BB9A18CB701D3B0BC6D06534152C48015A10B37D65EAF37AA55CDB865AFA2367A1328A406C1D0BFDFE0C5AE4BE39397EDC48F19815DE0CB86E1B30E15AEF43036BA0683F3F57B81CB4B5EE")
        let decrypted = try NetEaseCrypto.eapiDecrypt(params: params)
        #expect(decrypted.path == "/api/song/enhance/player/url/v1")
        #expect(decrypted.text == text)
    }

    @Test func eapiLyric() {
        let text = #"{"id":"347230","cp":false,"tv":0,"lv":0,"rv":0,"kv":0,"yv":0,"ytv":0,"yrv":0}"#
        #expect(NetEaseCrypto.eapi(path: "/api/song/lyric/v1", text: text) == "04AE33D34A93FE3EC22DA8FA305D290AB337D0FE5F36D211DE0D338CC6AA89D01717D08618A3071995EA6F04B47A1C8CD461DFF90077763EC1AEFEEA70B344C419ABCE961F17B6B8EC72B6A226725280E97469E44EE0EE9B82E7B6CB0ADD23238FAD1AC6DDB64F58B3D554526C11E3A59E99DA85253F03E5C3D842299285AAD1342F838FFAEEB11796244E4E9FD224996A0CD65090EA99EF0A5C347671448572")
    }

    @Test func eapiResponse() throws {
        let body: [UInt8] = [0x51, 0xB0, 0x5E, 0x35, 0xC6, 0x9B, 0x2F, 0x9F, 0xF4, 0x96, 0x77, 0x35, 0xDE, 0xD6, 0x88, 0x81]
        #expect(String(decoding: try NetEaseCrypto.eapiDecryptResponse(body), as: UTF8.self) == #"{"code":200}"#)
        #expect(NetEaseCrypto.eapiEncryptResponse(Array(#"{"code":200}"#.utf8)) == body)
    }

    @Test func eapiRejectsATamperedDigest() {
        let params = NetEaseCrypto.eapi(path: "/api/x", text: "{}")
        var bytes = Array(params)
        bytes[bytes.count - 40] = bytes[bytes.count - 40] == "A" ? "B" : "A"
        #expect(throws: (any Error).self) { try NetEaseCrypto.eapiDecrypt(params: String(bytes)) }
    }

    @Test func linuxapi() {
        let text = #"{"method":"POST","url":"https://music.163.com/api/song/lyric","params":{"id":"347230","lv":-1,"kv":-1,"tv":-1}}"#
        #expect(NetEaseCrypto.linuxapi(text) == "A0D9583F4C5FF68DE851D2893A49DE98FAFB24399F27B4F7E74C64B6FC49A965CFA972FA5EA3D6247CD6247C8198CB876BA9315A2F4B205B4E87A713A33C1C5DAA7B445EDD95E98E7565DEA65206007E611044FECAE5A6AE67B63F36E633033DE093E250563AC9AD962116E5E18BFC3E")
    }

    @Test func anonymousUsername() {
        #expect(NetEaseCrypto.anonymousUsername(deviceID: "NMUSIC")
                == "Tk1VU0lDIGdtVG82R2lvNEZoRWY5MFZqZzhPenc9PQ==")
        let long = NetEaseCrypto.anonymousUsername(deviceID: "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123")
        let decoded = String(decoding: Data(base64Encoded: long)!, as: UTF8.self)
        #expect(decoded.hasSuffix(" XkjHsj9vyWq5Q47Buv2Ucg=="))
    }

    /// The test key pair the fake server uses (`weapi_public_key`): a request encrypted with the public key is
    /// read back with the private one.
    @Test func weapiRoundTripWithATestKey() throws {
        let pem = try CommandLineTool.rsaKeyPair()
        let publicKey = try RSAPublicKey(pem: pem.publicPEM)
        let privateKey = try RSAPrivateKey(pem: pem.privatePEM)
        let text = #"{"s":"周杰伦","type":1,"csrf_token":"abc"}"#
        let (params, encSecKey) = NetEaseCrypto.weapi(text, publicKey: publicKey)
        #expect(try NetEaseCrypto.weapiDecrypt(params: params, encSecKey: encSecKey, privateKey: privateKey) == text)
        #expect(throws: (any Error).self) { try RSAPublicKey(pem: "not a key") }
    }
}
