// Deutsch: Passwörter und die Sicherheitsübersicht — Sicherheitsprotokoll, Passwort ändern, die Gründe der
// Passwortregeln (mit den Warnungen von zxcvbn), "Passwort vergessen?" mit seiner E-Mail und das Dev-Postfach.
import type { SecurityPasswordsMessages } from "../en/security_passwords.ts";

export const passwords: SecurityPasswordsMessages = {
  events: {
    sign_in: "Angemeldet",
    sign_in_failed: "Anmeldung fehlgeschlagen",
    sign_in_throttled: "Anmeldung nach fehlgeschlagenen Versuchen verlangsamt",
    second_factor_failed: "Falscher Code oder Passkey im zweiten Schritt",
    second_factor_throttled: "Zweiter Schritt nach fehlgeschlagenen Versuchen verlangsamt",
    step_up: "Mit einem zweiten Faktor bestätigt",
    factor_added: "Zweiter Faktor hinzugefügt",
    factor_removed: "Zweiter Faktor entfernt",
    recovery_codes_created: "Neue Wiederherstellungscodes erstellt",
    recovery_code_used: "Wiederherstellungscode verwendet",
    password_changed: "Passwort geändert",
    password_reset: "Passwort per E-Mail zurückgesetzt",
    password_reset_requested: "Zurücksetzen des Passworts angefordert",
    session_ended: "Von einem Browser abgemeldet",
    sessions_ended: "Überall sonst abgemeldet",
    signed_out: "Abgemeldet",
    workspace_policy_changed: "Regel eines Arbeitsbereichs zur zweistufigen Anmeldung geändert",
  },
  overview: {
    title: "Sicherheit",
    changed:
      "Ihr Passwort wurde geändert, und Ihre anderen Browser wurden abgemeldet. Verbundene Apps behalten " +
      "ihren Zugriff: Trennen Sie unter Verbundene Apps jede, der Sie nicht vertrauen.",
    password: "Passwort",
    lastChanged: (time: string) => `Zuletzt geändert: ${time}.`,
    neverChanged: "Seit der Erstellung des Kontos nicht geändert.",
    on: "Aktiviert",
    off: "Deaktiviert",
    manage: "Verwalten",
    setUp: "Einrichten",
    none: "Keine",
    passkeyCount: (n: number) => n === 1 ? "1 Passkey" : `${n} Passkeys`,
    managePasskeys: "Passkeys verwalten",
    noneLeft: "Keine mehr übrig",
    left: (n: number) => `noch ${n}`,
    whereSignedIn: "Wo Sie angemeldet sind",
    seeBrowsers: "Sehen Sie, welche Browser bei Ihrem Konto angemeldet sind",
    signOutUnknown: ", und melden Sie die ab, die Sie nicht kennen.",
    recentEvents: "Letzte Sicherheitsereignisse",
    nothingYet: "Noch nichts aufgezeichnet.",
    unknownAddress: "unbekannte Adresse",
    eventsNote: (newest: number | null) =>
      `Die ${
        newest === null ? "neuesten" : `${newest} neuesten`
      } Ereignisse: Anmeldungen und fehlgeschlagene ` +
      "Versuche, Änderungen an Ihrem Passwort und Ihren zweiten Faktoren, Abmeldungen.",
    switchAccount: "Konto wechseln",
  },
  password: {
    rule:
      "Mindestens 12 Zeichen. Mehrere Wörter ohne Zusammenhang ergeben ein starkes Passwort, das sich leicht " +
      "merken lässt; häufige Passwörter und solche aus Ihrer E-Mail-Adresse werden abgelehnt.",
    changeTitle: "Passwort ändern",
    chooseNew: "Neues Passwort wählen",
    required:
      "Ihr Passwort entspricht nicht unseren Passwortregeln: Es ist kürzer als 12 Zeichen, oder es ist " +
      "häufig oder leicht zu erraten (Angreifer probieren solche Passwörter zuerst). Wählen Sie ein neues, um " +
      "fortzufahren; Sie bleiben hier angemeldet, andere Browser werden abgemeldet.",
    current: "Aktuelles Passwort",
    new: "Neues Passwort",
    newAgain: "Neues Passwort wiederholen",
    gone: "Für dieses Konto kann das Passwort nicht geändert werden.",
    throttled: (minutes: number) =>
      `Zu viele falsche Passwörter. Warten Sie ${minutes} ${
        minutes === 1 ? "Minute" : "Minuten"
      } und versuchen Sie es erneut.`,
    wrongCurrent: "Das aktuelle Passwort ist nicht richtig.",
    mismatch: "Die beiden neuen Passwörter stimmen nicht überein.",
    same: "Das neue Passwort ist dasselbe wie das aktuelle.",
    tooShort: (min: number) =>
      `Verwenden Sie mindestens ${min} Zeichen. Mehrere Wörter, die Sie sich merken können, ergeben ein gutes ` +
      "Passwort.",
    tooLong: (max: number) => `Verwenden Sie höchstens ${max} Zeichen.`,
    personal:
      "Das Passwort enthält Ihre E-Mail-Adresse oder Ihren Namen, die andere erraten können. Wählen Sie " +
      "etwas anderes.",
    common:
      "Dieses Passwort steht auf Listen häufiger Passwörter, die Angreifer zuerst ausprobieren. Wählen Sie " +
      "ein anderes.",
    guessable: (warning: string) =>
      `Dieses Passwort ist zu leicht zu erraten. ${
        warning ? `${warning} ` : ""
      }Fügen Sie weitere Wörter oder ` +
      "Zeichen hinzu, die keinem Muster folgen.",
    warnings: {
      straightRow: "Gerade Tastenreihen der Tastatur sind leicht zu erraten.",
      keyPattern: "Kurze Tastaturmuster sind leicht zu erraten.",
      simpleRepeat: "Wiederholte Zeichen wie „aaa“ sind leicht zu erraten.",
      extendedRepeat: "Wiederholte Zeichenmuster wie „abcabcabc“ sind leicht zu erraten.",
      sequences: "Häufige Zeichenfolgen wie „abc“ sind leicht zu erraten.",
      recentYears: "Jahreszahlen der letzten Jahre sind leicht zu erraten.",
      dates: "Datumsangaben sind leicht zu erraten.",
      topTen: "Dies ist ein sehr häufig verwendetes Passwort.",
      topHundred: "Dies ist ein häufig verwendetes Passwort.",
      common: "Dies ist ein oft verwendetes Passwort.",
      similarToCommon: "Dies ähnelt einem oft verwendeten Passwort.",
      wordByItself: "Einzelne Wörter sind leicht zu erraten.",
      namesByThemselves: "Einzelne Vor- oder Nachnamen sind leicht zu erraten.",
      commonNames: "Häufige Vor- und Nachnamen sind leicht zu erraten.",
      userInputs: "Das Passwort sollte keine persönlichen oder auf diese Seite bezogenen Daten enthalten.",
      pwned: "Ihr Passwort wurde bei einem Datenleck im Internet offengelegt.",
    },
  },
  reset: {
    forgotTitle: "Passwort vergessen",
    forgotIntro:
      "Geben Sie die E-Mail-Adresse Ihres Kontos ein. Wir senden Ihnen einen Link, mit dem Sie ein " +
      "neues Passwort wählen können.",
    email: "E-Mail-Adresse",
    sendLink: "Link senden",
    backToSignIn: "Zurück zur Anmeldung",
    sentTitle: "Sehen Sie in Ihren E-Mails nach",
    sent: "Falls es zu dieser Adresse ein Konto gibt, haben wir einen Link gesendet, mit dem Sie ein neues " +
      "Passwort wählen können. Er funktioniert einmal und 30 Minuten lang.",
    noMail:
      "Nach einigen Minuten noch keine E-Mail? Sehen Sie im Spam-Ordner nach, oder fordern Sie später " +
      "einen neuen Link an.",
    newPasswordMin: "Neues Passwort (mindestens 12 Zeichen)",
    setPassword: "Passwort festlegen",
    invalidTitle: "Link ungültig",
    invalidHeading: "Dieser Link funktioniert nicht mehr",
    invalidMessage:
      "Ein Link zum Zurücksetzen des Passworts funktioniert einmal und 30 Minuten lang, und nur " +
      "der zuletzt gesendete gilt. Es wurde nichts geändert.",
    askNewLink: "Neuen Link anfordern",
    mismatch: "Die beiden Passwörter stimmen nicht überein.",
    tooManyTries: "Zu viele Versuche mit diesem Link. Fordern Sie einen neuen Link an.",
    mailboxTitle: "Dev-Postfach",
    mailboxBefore: "E-Mails, die dieser Server gesendet hätte (",
    mailboxAfter: " ist nicht gesetzt; nur mit der eingebetteten Datenbank zu sehen). Neueste zuerst, die " +
      "letzten 50.",
    mailboxEmpty: "Noch keine E-Mails.",
    mailTo: (to: string, at: string) => `An ${to}, ${at}`,
    mail: {
      subject: "Passwort zurücksetzen",
      asked: "Jemand (hoffentlich Sie) hat angefordert, das Passwort Ihres Kontos zurückzusetzen.",
      openLink: "Um ein neues Passwort zu wählen, öffnen Sie diesen Link innerhalb von 30 Minuten (er " +
        "funktioniert einmal):",
      ignore:
        "Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist.",
    },
  },
};
