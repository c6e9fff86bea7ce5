/** The API calls that do what the playground did, ready to paste: curl and Python `requests`. */
export interface SnippetRequest {
  /** The server's own origin, e.g. https://roomstage.example. */
  origin: string;
  /** The full key, or its prefix followed by "…" when only the prefix is known. */
  apiKey: string;
  style: string;
  roomType: string;
}

export function curlSnippet({ origin, apiKey, style, roomType }: SnippetRequest): string {
  return [
    `curl -s ${origin}/api/v1/stage \\`,
    `  -H "Authorization: Bearer ${apiKey}" \\`,
    `  -F image=@room.jpg -F style=${style} -F room_type=${roomType}`,
  ].join('\n');
}

export function pythonSnippet({ origin, apiKey, style, roomType }: SnippetRequest): string {
  return [
    'import requests',
    '',
    'with open("room.jpg", "rb") as photo:',
    '    response = requests.post(',
    `        "${origin}/api/v1/stage",`,
    `        headers={"Authorization": "Bearer ${apiKey}"},`,
    '        files={"image": photo},',
    `        data={"style": "${style}", "room_type": "${roomType}"},`,
    '    )',
    'response.raise_for_status()',
    'staged = response.json()',
    'print(staged["claim_code"], staged["image_url"])',
  ].join('\n');
}
