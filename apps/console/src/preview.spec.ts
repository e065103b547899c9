import { prettyJson, previewKind } from './preview';

describe('previews', () => {
  it('chooses the preview by media type', () => {
    expect(['image/png', 'audio/wav', 'video/mp4', 'application/json', 'text/plain; charset=utf-8', 'application/zip'].map(previewKind)).toEqual(['image', 'audio', 'video', 'json', 'text', 'none']);
  });

  it('pretty-prints whole JSON, and JSON cut off in the middle without needing its end', () => {
    expect(prettyJson('{"a":[1,2],"b":{}}', false)).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": {}\n}');
    expect(prettyJson('{"a":[1,2],"b":"x, {y}","c":{"d":', true)).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": "x, {y}",\n  "c": {\n    "d": ');
  });
});
