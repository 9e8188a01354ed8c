import { jsonrepair } from 'jsonrepair'
import { readFileSync } from 'fs'
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean)
for (const line of lines) {
  const d = JSON.parse(line)
  let rec
  try {
    rec = { in: d.in, out: jsonrepair(d.in) }
  } catch (e) {
    rec = { in: d.in, error: String(e.message) }
  }
  process.stdout.write(JSON.stringify(rec) + '\n')
}
