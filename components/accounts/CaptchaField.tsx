"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { solveChallenge } from "altcha-lib/v1";
import type { CaptchaChallenge } from "@/lib/auth/captcha";

/**
 * The registration form's captcha (public.md §1; docs/decisions/0021-captcha.md): the browser
 * solves the server's ALTCHA proof-of-work challenge with altcha-lib's own solver (Web Crypto,
 * no third party, nothing tracked) and puts the solution in the hidden `altcha` field.
 */
export default function CaptchaField({ challenge }: { challenge: CaptchaChallenge | null }) {
  // The outcome for one challenge (its signature): the payload, or null when no solution was found.
  const [result, setResult] = useState<{ signature: string; payload: string | null } | null>(null);
  const t = useTranslations("register");

  useEffect(() => {
    if (!challenge) return;
    const { signature } = challenge;
    const { promise, controller } = solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber);
    promise.then((found) => {
      const payload = found ? btoa(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number: found.number, salt: challenge.salt, signature })) : null;
      setResult({ signature, payload });
    }, () => {
      if (!controller.signal.aborted) setResult({ signature, payload: null });
    });
    return () => controller.abort();
  }, [challenge]);

  const current = challenge && result?.signature === challenge.signature ? result : null;
  const status = !current ? "working" : current.payload ? "done" : "failed";
  const solution = current?.payload ?? "";

  return (
    <div className="captcha" data-challenge={challenge ? JSON.stringify(challenge) : undefined} data-captcha-status={status}>
      <input type="hidden" name="altcha" value={solution} />
      <p className="help" role="status">
        {status === "working" && t("captchaWorking")}
        {status === "done" && t("captchaDone")}
        {status === "failed" && t("captchaFailed")}
      </p>
      <noscript><p className="help">{t("captchaNoScript")}</p></noscript>
    </div>
  );
}
