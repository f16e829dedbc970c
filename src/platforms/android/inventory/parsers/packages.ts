// Parses `pm list packages` ("package:com.android.chrome" lines) and picks
// out the browsers the cloud knows how to drive.

export function parsePackages(text: string) {
  const packages = new Set<string>();
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const match = /^package:([A-Za-z0-9_.]+)\s*$/.exec(line);
    if (match?.[1]) packages.add(match[1]);
  }
  return packages;
}

/** Browser package → the name reported to the cloud. */
export const BROWSERS: Readonly<Record<string, string>> = {
  'com.android.chrome': 'chrome',
  'com.chrome.beta': 'chrome-beta',
  'com.chrome.dev': 'chrome-dev',
  'com.chrome.canary': 'chrome-canary',
  'org.mozilla.firefox': 'firefox',
  'org.mozilla.firefox_beta': 'firefox-beta',
  'org.mozilla.focus': 'firefox-focus',
  'com.microsoft.emmx': 'edge',
  'com.opera.browser': 'opera',
  'com.opera.mini.native': 'opera-mini',
  'com.sec.android.app.sbrowser': 'samsung-internet',
  'com.brave.browser': 'brave',
  'com.duckduckgo.mobile.android': 'duckduckgo',
  'com.UCMobile.intl': 'uc-browser',
  'com.UCMobile': 'uc-browser', // the Chinese edition (Meizu MX6 recording)
  'com.vivo.browser': 'vivo-browser', // vivo's own (vivo X9 recording)
  'com.yandex.browser': 'yandex',
  'com.mi.globalbrowser': 'mi-browser',
  'com.huawei.browser': 'huawei-browser',
  'com.heytap.browser': 'heytap-browser',
  'com.vivaldi.browser': 'vivaldi',
  'com.android.browser': 'android-browser',
};

export function installedBrowsers(packages: Set<string>) {
  const names = new Set(Object.entries(BROWSERS).flatMap(([pkg, name]) => (packages.has(pkg) ? [name] : [])));
  return [...names].map((name) => ({ name }));
}
