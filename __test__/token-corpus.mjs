// Texts of every kind a tool returns, made here from a fixed seed (nothing is downloaded), for
// measuring token counts: each kind is about 16 KiB of UTF-8.

/** A small seeded generator (xorshift32), so every run makes the same texts. */
function random(seed) {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x / 2 ** 32
  }
}

const SIZE = 16 * 1024

/** Pieces drawn by `next(pick)` until the text has SIZE UTF-8 bytes. */
function build(seed, next) {
  const r = random(seed)
  const pick = (list) => list[Math.floor(r() * list.length)]
  const pieces = []
  let bytes = 0
  while (bytes < SIZE) {
    const piece = next(pick, r)
    pieces.push(piece)
    bytes += Buffer.byteLength(piece)
  }
  return pieces.join('')
}

const WORDS =
  'the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so more no who about what out up into them can some only other time than then its over also new after first two may'.split(
    ' ',
  )
const COMMON_CJK =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切尔'
const RARE_CJK =
  '龘靐齉爩麤鱻馫龗鱲鸾黉鼗齑龠鳢麴黩鼙齮龋鬯鬻黻黼鼍鼐鼒鼕鼖鼛鼜鼝鼞鼟鼡鼢鼣鼤鼥鼦鼧鼨鼩鼪鼫鼬鼭鼮鼯鼰鼱鼲鼳鼴鼵鼶鼷鼸鼹鼺鼻鼼鼽鼾鼿齀齁齂齃齄齅齆齇齈齉齊齋齌齍齎齏齐齑齒齓齔齕齖齗齘齙齚齛齜齝齞齟齠齡齢齣齤齥齦齧齨齩齪齫齬齭齮齯齰齱齲齳齴齵齶齷齸齹齺齻齼齽齾齿龀龁龂龃龄龅龆龇龈龉龊龋龌龍龎龏龐龑龒龓龔龕龖龗龘龙龚龛龜龝龞龟龠龡龢龣龤龥'
const ARABIC =
  'في من على إلى أن هذا التي الذي كان مع عن بين كل هذه قد لا ما هو هي ذلك بعد عند حتى أو ثم كما لقد الملف الخادم الطلب خطأ تم التحميل المستخدم البيانات'.split(
    ' ',
  )
const HINDI = 'के में की है और से को का एक यह पर भी नहीं कि था हैं लिए किया कर गया फ़ाइल सर्वर अनुरोध त्रुटि उपयोगकर्ता डेटा लोड हुआ'.split(' ')
const EMOJI = ['😀', '🚀', '✅', '❌', '🔥', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🧑🏿‍💻', '🇯🇵', '❤️', '🤖', '📦', '⚠️', '🎉']

const code = {
  ts: [
    'export async function load(path: string): Promise<Buffer> {\n',
    '  const handle = await open(path, "r")\n',
    '  try { return await handle.readFile() } finally { await handle.close() }\n}\n',
    'interface Options { maxBytes?: number; strategy: "head" | "tail" }\n',
  ],
  py: [
    'def parse(line: str) -> dict:\n',
    '    key, _, value = line.partition("=")\n',
    '    return {key.strip(): value.strip()}\n',
    'for i in range(10):\n    print(i ** 2)\n',
  ],
  rust: [
    'fn main() -> Result<(), Box<dyn Error>> {\n',
    '    let text = std::fs::read_to_string(&path)?;\n',
    '    for (i, line) in text.lines().enumerate() {\n',
    '        println!("{i}: {line}");\n    }\n    Ok(())\n}\n',
  ],
  go: [
    'func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {\n',
    '\tif err := s.check(r); err != nil {\n',
    '\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}\n}\n',
  ],
  java: [
    'public final class Cache<K, V> {\n',
    '    private final Map<K, V> entries = new HashMap<>();\n',
    '    public V get(K key) { return entries.get(key); }\n}\n',
  ],
}

/** Each kind: its name and its text. */
export const CORPUS = {
  'English prose': build(1, (pick, r) => {
    const sentence = Array.from({ length: 6 + Math.floor(r() * 14) }, () => pick(WORDS)).join(' ')
    return `${sentence[0].toUpperCase()}${sentence.slice(1)}. `
  }),
  TypeScript: build(2, (pick) => pick(code.ts)),
  Python: build(3, (pick) => pick(code.py)),
  Rust: build(4, (pick) => pick(code.rust)),
  Go: build(5, (pick) => pick(code.go)),
  Java: build(6, (pick) => pick(code.java)),
  JSON: build(
    7,
    (pick, r) =>
      `${JSON.stringify({ id: Math.floor(r() * 1e6), name: pick(WORDS), ok: r() > 0.5, tags: [pick(WORDS), pick(WORDS)], score: Number(r().toFixed(4)) })},\n`,
  ),
  'minified JS': build(
    8,
    (pick, r) =>
      `function ${pick(WORDS)}${Math.floor(r() * 99)}(a,b){return a&&b?a[b]||0:!1}var e=${Math.floor(r() * 1e4)},t=[1,2,3].map(function(n){return n*e});`,
  ),
  'logs with ANSI': build(
    9,
    (pick, r) =>
      `\x1b[2m2026-11-25T10:00:${String(Math.floor(r() * 60)).padStart(2, '0')}Z\x1b[0m \x1b[3${1 + Math.floor(r() * 6)}m${pick(['INFO', 'WARN', 'ERROR'])}\x1b[0m [worker-${Math.floor(r() * 8)}] ${pick(WORDS)} ${pick(WORDS)} took ${Math.floor(r() * 900)}ms\n`,
  ),
  'file paths': build(
    10,
    (pick, r) =>
      `/home/user/projects/${pick(WORDS)}/src/${pick(WORDS)}/${pick(WORDS)}_${Math.floor(r() * 100)}.${pick(['ts', 'rs', 'py', 'json', 'md'])}\n`,
  ),
  'CJK, common': build(11, (pick) => pick([...COMMON_CJK])),
  'CJK, rare': build(12, (pick) => pick([...RARE_CJK])),
  Arabic: build(13, (pick) => `${pick(ARABIC)} `),
  Hindi: build(14, (pick) => `${pick(HINDI)} `),
  'emoji and ZWJ sequences': build(15, (pick) => pick(EMOJI)),
  base64: build(16, (pick, r) => {
    const bytes = Buffer.alloc(57)
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(r() * 256)
    return `${bytes.toString('base64')}\n`
  }),
  hex: build(
    17,
    (pick, r) =>
      `${Math.floor(r() * 2 ** 32)
        .toString(16)
        .padStart(8, '0')}`,
  ),
  'random bytes as Latin-1': build(18, (pick, r) => String.fromCharCode(Math.floor(r() * 256))),
  'special-token spellings': build(
    19,
    (pick) => `${pick(['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|fim_prefix|>', '<|endofprompt|>'])} ${pick(WORDS)} `,
  ),
}
