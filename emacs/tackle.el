;;; tackle.el --- Approve, watch and call tackle's tools from Emacs  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, processes
;; URL: https://github.com/tackle/tackle

;;; Commentary:

;; tackle is a tool system for AI agents.  `tackle serve' offers its tools
;; over an HTTP API with a server-sent event stream; this package is that
;; API's Emacs front end:
;;
;; - `tackle-start' runs `tackle serve' for the current project and connects;
;;   `tackle-connect' connects to one already running; `tackle-stop' ends it.
;; - *tackle-approvals* lists the calls waiting for a person: a approve,
;;   r reject with a message, A always, e edit the arguments, RET details.
;; - *tackle-events* shows what the agent does as it happens; buffers visiting
;;   files the agent changed are reverted when they have no unsaved edits.
;; - `tackle-call' calls a tool by hand, asking for each argument.
;; - A Lisp API for other packages: `tackle-call-sync', `tackle-pending',
;;   `tackle-approve', `tackle-reject' (and spec 002's
;;   `emacs-agent-api-approve' and `emacs-agent-api-reject').
;;
;; Set-up: (add-to-list 'load-path "/path/to/tackle/emacs") (require 'tackle)
;;
;; Only libraries that ship with Emacs are used.  HTTP is spoken directly over
;; a network process (HTTP/1.0, one request per connection), so nothing waits
;; on the network except the functions whose names end in -sync.

;;; Code:

(require 'cl-lib)
(require 'json)
(require 'subr-x)
(require 'seq)
(require 'url-parse)
(require 'url-util)
(require 'diff-mode)
(require 'project)

;;;; Options

(defgroup tackle nil
  "Approve, watch and call tackle's tools."
  :group 'tools
  :prefix "tackle-")

(defcustom tackle-program '("npx" "--no-install" "tackle")
  "The tackle command: a program and its leading arguments.
For a checkout, use (\"node\" \"/path/to/tackle/dist/cli/main.cjs\")."
  :type '(repeat string))

(defcustom tackle-serve-arguments nil
  "More arguments for `tackle serve', such as (\"--approval\" \"ask\")."
  :type '(repeat string))

(defcustom tackle-start-timeout 120
  "Seconds `tackle-start' waits for the server to print its address."
  :type 'number)

(defcustom tackle-events-max-lines 2000
  "Lines kept in *tackle-events*; older ones are dropped."
  :type 'integer)

(defcustom tackle-reconnect-delay 1.0
  "Seconds before the event stream reconnects after losing the server.
The delay doubles on each failure, up to 10 seconds."
  :type 'number)

(defcustom tackle-announce-approvals t
  "When non-nil, a new approval request is announced in the echo area."
  :type 'boolean)

;;;; State

(defvar tackle--url nil "Base URL of the connected server, without a trailing slash.")
(defvar tackle--token nil "Bearer token for the connected server, or nil.")
(defvar tackle--token-from-file nil
  "Non-nil when `tackle--token' came from the server's token file.
It is read again on each reconnect, since a restarted server makes a new one.")
(defvar tackle--root nil "The workspace the server's relative paths are in.")
(defvar tackle--server-process nil "The `tackle serve' process `tackle-start' started.")
(defvar tackle--events-process nil "The network process reading the event stream.")
(defvar tackle--events-pending "" "Event-stream text not yet split into events.")
(defvar tackle--stream-ready nil "Non-nil once the server has accepted the event stream.")
(defvar tackle--reconnect-timer nil)
(defvar tackle--reconnect-delay nil)
(defvar tackle--pending nil "Approval requests waiting for a person, oldest first, as alists.")

(defvar tackle--approval-logs nil
  "One cons cell per reload of the approvals still in flight.
Its cdr collects, newest first, what events changed since the reload was
sent: (added . REQUEST) or (resolved . ID).  The reload's answer may have been
made before those events, so they are applied again on top of it.")
(defvar tackle--agent-state "idle" "The agent's state from the last agent.state event.")
(defvar tackle--tools nil "Tools as GET /api/tools answered, cached for completion.")
(defvar tackle--connected-hook nil "Functions run once after each successful (re)connection.")

(defvar tackle-event-functions nil
  "Functions called with (TYPE DATA) for every event from the server.
TYPE is a string such as \"tool.result\"; DATA an alist.")

;;;; JSON

(defun tackle--native-json-p ()
  "Non-nil when this Emacs parses JSON natively (built with libjansson)."
  (and (fboundp 'json-available-p) (json-available-p)))

(defun tackle--json-read (text)
  "Parse TEXT as JSON: objects become alists with symbol keys, arrays lists."
  (if (tackle--native-json-p)
      (json-parse-string text :object-type 'alist :array-type 'list
                         :null-object nil :false-object :json-false)
    (let ((json-object-type 'alist) (json-array-type 'list) (json-key-type 'symbol)
          (json-false :json-false) (json-null nil))
      (json-read-from-string text))))

(defun tackle--object-p (value)
  "Non-nil when VALUE is an alist to send as a JSON object."
  (and (consp value)
       (cl-every (lambda (e) (and (consp e) (or (symbolp (car e)) (stringp (car e))))) value)))

(defun tackle--to-json (value)
  "VALUE as the JSON encoder takes it: alists are objects, other lists arrays."
  (cond
   ((eq value :json-false) (if (tackle--native-json-p) :false :json-false))
   ((eq value t) t)
   ((null value) (if (tackle--native-json-p) :null nil))
   ((hash-table-p value) value)
   ((tackle--object-p value)
    (let ((table (make-hash-table :test 'equal)))
      (dolist (entry value table)
        (puthash (if (symbolp (car entry)) (symbol-name (car entry)) (car entry))
                 (tackle--to-json (cdr entry)) table))))
   ((vectorp value) (vconcat (mapcar #'tackle--to-json value)))
   ((consp value) (vconcat (mapcar #'tackle--to-json value)))
   (t value)))

(defun tackle--json-encode (value)
  "VALUE as JSON text; nil is the empty object."
  (let ((data (if (null value) (make-hash-table) (tackle--to-json value))))
    (if (tackle--native-json-p)
        (json-serialize data)
      (let ((json-false :json-false) (json-null nil))
        (json-encode data)))))

;;;; HTTP

(define-error 'tackle-error "tackle")

(defun tackle--require-connection ()
  (unless tackle--url
    (signal 'tackle-error '("Not connected: M-x tackle-start, or (tackle-connect URL)"))))

(defun tackle--endpoint ()
  "Host and port of the connected server."
  (let ((u (url-generic-parse-url tackle--url)))
    (cons (url-host u) (url-port u))))

(defun tackle--request-text (method path body)
  "The HTTP/1.0 request for METHOD PATH with BODY (a string or nil)."
  (let* ((endpoint (tackle--endpoint))
         (data (and body (encode-coding-string body 'utf-8))))
    (concat method " " path " HTTP/1.0\r\n"
            (format "Host: %s:%d\r\n" (car endpoint) (cdr endpoint))
            "Accept: application/json, text/event-stream\r\n"
            (if tackle--token (format "Authorization: Bearer %s\r\n" tackle--token) "")
            (if data
                (format "Content-Type: application/json\r\nContent-Length: %d\r\n" (length data))
              "")
            "\r\n"
            (or data ""))))

(defun tackle--open (name path method body filter sentinel)
  "Open a connection NAME and send METHOD PATH with BODY.
FILTER and SENTINEL handle what comes back."
  (let* ((endpoint (tackle--endpoint))
         (process (make-network-process
                   :name name :buffer nil
                   :host (car endpoint) :service (cdr endpoint)
                   :coding 'binary :noquery t
                   :filter filter :sentinel sentinel)))
    (process-send-string process (tackle--request-text method path body))
    process))

(defun tackle--parse-response (raw)
  "Split RAW (an HTTP response as bytes) into (STATUS . BODY-TEXT)."
  (let ((end (string-search "\r\n\r\n" raw)))
    (unless (and end (string-match "\\`HTTP/[0-9.]+ \\([0-9]+\\)" raw))
      (signal 'tackle-error (list "The server's answer is not HTTP" (substring raw 0 (min 200 (length raw))))))
    (cons (string-to-number (match-string 1 raw))
          (decode-coding-string (substring raw (+ end 4)) 'utf-8))))

(defun tackle--request (method path body callback)
  "Send METHOD PATH with BODY (a Lisp value or nil).
CALLBACK is called with (STATUS DATA): DATA is the parsed JSON answer.
When the server cannot be reached, STATUS is nil and DATA the error
message.  Returns the network process."
  (tackle--require-connection)
  (let ((chunks nil)
        (done nil))
    (condition-case err
        (tackle--open
         "tackle-request" path method (and body (tackle--json-encode body))
         (lambda (_process text) (push text chunks))
         (lambda (process event)
           (unless (or done (string-prefix-p "open" event))
             (setq done t)
             (delete-process process)
             (let ((raw (apply #'concat (nreverse chunks))))
               (condition-case parse-error
                   (let ((response (tackle--parse-response raw)))
                     (funcall callback (car response)
                              (if (string-empty-p (cdr response)) nil (tackle--json-read (cdr response)))))
                 (error (funcall callback nil (error-message-string parse-error))))))))
      (file-error (funcall callback nil (error-message-string err)) nil))))

(defun tackle--request-sync (method path &optional body)
  "Send METHOD PATH with BODY and wait for the answer; return its JSON.
Signals `tackle-error' when the server cannot be reached or answers an error."
  (let ((result nil) (finished nil))
    (tackle--request method path body (lambda (status data) (setq result (cons status data) finished t)))
    ;; Wait on every process, not this one: Emacs runs sentinels (which finish the
    ;; request) only when the wait is not tied to a single process.
    (while (not finished)
      (accept-process-output nil 0.05))
    (let ((status (car result)) (data (cdr result)))
      (cond
       ((null status) (signal 'tackle-error (list "Cannot reach tackle" data)))
       ((>= status 400)
        (signal 'tackle-error (list (format "HTTP %d" status) (or (alist-get 'error data) data))))
       (t data)))))

;;;; Connecting and the event stream

(defun tackle-connected-p ()
  "Non-nil when the event stream is open and the server has accepted it."
  (and tackle--stream-ready tackle--events-process (process-live-p tackle--events-process) t))

;;;###autoload
(defun tackle--token-file (url)
  "The file where `tackle serve' at URL keeps its token.
See src/cli/server-token.ts."
  (let* ((parsed (url-generic-parse-url url))
         (state (or (getenv "XDG_STATE_HOME") (expand-file-name "~/.local/state"))))
    (expand-file-name (format "tackle/servers/%s-%s.token"
                              (replace-regexp-in-string "[^A-Za-z0-9.-]" "_" (url-host parsed))
                              (url-port parsed))
                      state)))

(defun tackle--url-and-token (url token)
  "URL without a ?token= query, and the token to use.
That is TOKEN, else the query's, else the one in the server's token file."
  (let* ((query (and (string-match "[?&]token=\\([^&#]+\\)" url) (url-unhex-string (match-string 1 url))))
         (base (string-remove-suffix "/" (replace-regexp-in-string "[?#].*\\'" "" url)))
         (file (tackle--token-file base)))
    (list base (or token query
                   (and (file-readable-p file)
                        (with-temp-buffer
                          (insert-file-contents file)
                          (let ((found (string-trim (buffer-string))))
                            (unless (string-empty-p found) found))))))))

(defun tackle-connect (url &optional token)
  "Connect to a running `tackle serve' at URL, with TOKEN if it needs one.
The token may also come in URL (as the dashboard's address has it, ?token=...),
or from the file the server keeps it in for this user.
Paths in events are taken relative to the server's workspace (or, when that
folder is not on this machine, to `default-directory')."
  (interactive (list (read-string "tackle serve URL: " (or tackle--url "http://127.0.0.1:7878"))
                     (let ((token (read-string "Token (empty: from the URL or the server's token file): ")))
                       (unless (string-empty-p token) token))))
  (tackle--disconnect)
  (pcase-let ((`(,base ,found) (tackle--url-and-token url token)))
    (setq tackle--token-from-file (and (null token) (not (string-match-p "[?&]token=" url)))
          url base token found))
  (setq tackle--url url
        tackle--token token
        tackle--root (or tackle--root default-directory)
        tackle--reconnect-delay tackle-reconnect-delay)
  (tackle--install-mode-line)
  (tackle--open-events)
  tackle--url)

(defun tackle--open-events ()
  "Open the event stream; on success, reload what the stream does not replay."
  (setq tackle--events-pending "" tackle--stream-ready nil)
  (when tackle--token-from-file
    (setq tackle--token (cadr (tackle--url-and-token tackle--url nil))))
  (condition-case err
      (setq tackle--events-process
            (tackle--open "tackle-events" "/api/events" "GET" nil
                          #'tackle--events-filter #'tackle--events-sentinel))
    (file-error
     (setq tackle--events-process nil)
     (tackle--schedule-reconnect (downcase (or (nth 2 err) "cannot connect"))))))

(defun tackle--events-filter (_process text)
  (setq tackle--events-pending (concat tackle--events-pending text))
  ;; The first bytes are the HTTP head: check it, then keep only the stream.
  (when (string-prefix-p "HTTP/" tackle--events-pending)
    (let ((end (string-search "\r\n\r\n" tackle--events-pending)))
      (when end
        (let ((status (and (string-match "\\`HTTP/[0-9.]+ \\([0-9]+\\)" tackle--events-pending)
                           (string-to-number (match-string 1 tackle--events-pending)))))
          (setq tackle--events-pending (substring tackle--events-pending (+ end 4)))
          (if (eq status 200)
              (tackle--on-connected)
            ;; Retrying a refusal at full speed would only repeat it: wait the longest delay.
            (setq tackle--reconnect-delay 10)
            (message "tackle: the event stream was refused (HTTP %s)%s" status
                     (if (memq status '(401 403)) "; check the token" "")))))))
  (unless (string-prefix-p "HTTP/" tackle--events-pending)
    (let (end)
      (while (setq end (string-search "\n\n" tackle--events-pending))
        (let ((frame (decode-coding-string (substring tackle--events-pending 0 end) 'utf-8)))
          (setq tackle--events-pending (substring tackle--events-pending (+ end 2)))
          (tackle--dispatch-frame frame))))))

(defun tackle--dispatch-frame (frame)
  "Parse one server-sent event FRAME and handle it."
  (let (type data)
    (dolist (line (split-string frame "\n"))
      (cond ((string-prefix-p "event: " line) (setq type (substring line 7)))
            ((string-prefix-p "data: " line) (setq data (concat data (substring line 6))))))
    (when (and type data)
      (let ((parsed (condition-case nil (tackle--json-read data) (error nil))))
        (tackle--handle-event type parsed)))))

(defun tackle--events-sentinel (process _event)
  (when (and (eq process tackle--events-process) (not (process-live-p process)))
    (setq tackle--events-process nil tackle--stream-ready nil)
    (when tackle--url
      (tackle--schedule-reconnect "the server closed the event stream"))))

(defun tackle--schedule-reconnect (why)
  (unless (timerp tackle--reconnect-timer)
    (let ((delay (or tackle--reconnect-delay tackle-reconnect-delay)))
      (message "tackle: disconnected (%s); reconnecting in %.0f s" why delay)
      (setq tackle--reconnect-delay (min 10 (* 2 delay))
            tackle--reconnect-timer
            (run-at-time delay nil
                         (lambda ()
                           (setq tackle--reconnect-timer nil)
                           (when (and tackle--url (not (and tackle--events-process (process-live-p tackle--events-process))))
                             (tackle--open-events))))))))

(defun tackle--on-connected ()
  (setq tackle--reconnect-delay tackle-reconnect-delay
        tackle--stream-ready t)
  (tackle--learn-workspace)
  (tackle-refresh)
  (run-hooks 'tackle--connected-hook)
  (force-mode-line-update t))

(defun tackle--learn-workspace ()
  "Take the workspace from the server, so event paths resolve wherever Emacs is.
Kept as it was when the server's folder is not one on this machine."
  (tackle--request "GET" "/api/state" nil
                   (lambda (status data)
                     (let ((root (and (eq status 200) (alist-get 'workspace data))))
                       (when (and (stringp root) (file-directory-p root))
                         (setq tackle--root (file-name-as-directory root)))))))

(defun tackle--disconnect ()
  "Close the event stream and forget the server."
  (when (timerp tackle--reconnect-timer) (cancel-timer tackle--reconnect-timer))
  (setq tackle--reconnect-timer nil)
  (let ((process tackle--events-process))
    (setq tackle--events-process nil tackle--stream-ready nil)
    (when process (delete-process process)))
  (setq tackle--url nil tackle--pending nil tackle--approval-logs nil tackle--tools nil tackle--agent-state "idle")
  (tackle--render-approvals)
  (force-mode-line-update t))

;;;; Starting and stopping a server

(defun tackle--project-root ()
  (let ((project (project-current nil)))
    (expand-file-name (if project (project-root project) default-directory))))

;;;###autoload
(defun tackle-start (&optional directory)
  "Start `tackle serve' for DIRECTORY (the current project) and connect to it.
Returns the server process; the connection is made when the server prints
its address, without blocking Emacs."
  (interactive)
  (when (and tackle--server-process (process-live-p tackle--server-process))
    (user-error "tackle is already running; M-x tackle-stop first"))
  (let* ((root (file-name-as-directory (expand-file-name (or directory (tackle--project-root)))))
         (default-directory root)
         (output "")
         (command (append tackle-program
                          (list "serve" "--port" "0" "--workspace" root)
                          tackle-serve-arguments))
         process)
    (unless (executable-find (car tackle-program))
      (user-error "tackle: cannot start %s: no such program on `exec-path'; set `tackle-program'"
                  (car tackle-program)))
    (setq tackle--root root)
    (setq process
          (make-process
           :name "tackle-serve" :buffer (get-buffer-create " *tackle-serve*")
           :command command :connection-type 'pipe :noquery t
           :filter (lambda (proc text)
                     (when (buffer-live-p (process-buffer proc))
                       (with-current-buffer (process-buffer proc)
                         (goto-char (point-max))
                         (insert text)))
                     (unless tackle--url
                       (setq output (concat output text))
                       (when (string-match "serving on \\(https?://[^ \r\n]+\\)" output)
                         ;; The token line comes first: "Authorization: Bearer TOKEN".
                         (tackle-connect (match-string 1 output)
                                         (and (string-match "Authorization: Bearer \\([^ \r\n]+\\)" output)
                                              (match-string 1 output)))
                         (message "tackle: serving %s at %s" root tackle--url))))
           :sentinel (lambda (proc _event)
                       (unless (process-live-p proc)
                         (when (eq proc tackle--server-process)
                           (setq tackle--server-process nil)
                           (unless tackle--url
                             (message "tackle serve exited before it was ready: %s%s"
                                      (string-trim output)
                                      (if (string-match-p "could not determine executable\\|404\\|not found" output)
                                          (concat "  (Is tackle installed? From its clone: npm install -g ."
                                                  "  Or set `tackle-program'.)")
                                        ""))))))))
    (setq tackle--server-process process)
    (let ((timeout tackle-start-timeout))
      (run-at-time timeout nil
                   (lambda ()
                     (when (and (eq tackle--server-process process) (not tackle--url))
                       (message "tackle serve printed no address within %s s; stopping it" timeout)
                       (tackle--kill-server process)))))
    process))

(defun tackle-wait-until-connected (&optional timeout)
  "Wait up to TIMEOUT seconds for the event stream.
TIMEOUT defaults to `tackle-start-timeout'.
Returns non-nil when connected.  Meant for scripts and tests."
  (let ((deadline (+ (float-time) (or timeout tackle-start-timeout))))
    (while (and (not (tackle-connected-p)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (tackle-connected-p)))

(defun tackle--kill-server (process)
  "End PROCESS and everything it started (npx runs node as its child)."
  (when (process-live-p process)
    (let ((pid (process-id process)))
      ;; Emacs makes each subprocess the leader of its own group: signal the group.
      (ignore-errors (signal-process (- pid) 'SIGTERM))
      (let ((deadline (+ (float-time) 10)))
        (while (and (process-live-p process) (< (float-time) deadline))
          (accept-process-output nil 0.05)))
      (when (process-live-p process)
        (ignore-errors (signal-process (- pid) 'SIGKILL))
        (delete-process process)))))

;;;###autoload
(defun tackle-stop ()
  "Disconnect, and end the server `tackle-start' started."
  (interactive)
  (tackle--disconnect)
  (let ((process tackle--server-process))
    (setq tackle--server-process nil tackle--root nil)
    (when process (tackle--kill-server process))
    (when-let ((buffer (get-buffer " *tackle-serve*"))) (kill-buffer buffer)))
  (message "tackle: stopped"))

;;;; Events

(defun tackle--request-id (request)
  "The desk's id of REQUEST (its toolCallId may repeat across processes)."
  (or (alist-get 'id request) (alist-get 'toolCallId request)))

(defun tackle--pending-with (pending request)
  "PENDING with REQUEST added at the end, unless one with its id is there."
  (if (cl-find (tackle--request-id request) pending :key #'tackle--request-id :test #'equal)
      pending
    (append pending (list request))))

(defun tackle--pending-without (pending id)
  "PENDING without the request whose id is ID."
  (cl-remove id pending :key #'tackle--request-id :test #'equal))

(defun tackle--add-pending (request)
  "Add REQUEST to the waiting approvals, and to every reload in flight."
  (setq tackle--pending (tackle--pending-with tackle--pending request))
  (dolist (log tackle--approval-logs) (push (cons 'added request) (cdr log))))

(defun tackle--drop-pending (id)
  "Remove the approval ID from the waiting ones, and from every reload in flight."
  (setq tackle--pending (tackle--pending-without tackle--pending id))
  (dolist (log tackle--approval-logs) (push (cons 'resolved id) (cdr log))))

(defun tackle--handle-event (type data)
  "React to the event TYPE with DATA, then log it."
  (pcase type
    ("approval.requested"
     (tackle--add-pending data)
     (tackle--render-approvals)
     (when tackle-announce-approvals
       (message "tackle: %s wants approval (%s). %s"
                (alist-get 'tool data) (alist-get 'reason data)
                (substitute-command-keys "\\[tackle-approvals] to answer"))))
    ("approval.resolved"
     (tackle--drop-pending (tackle--request-id data))
     (tackle--render-approvals))
    ("agent.state"
     (setq tackle--agent-state (or (alist-get 'state data) "idle"))
     (force-mode-line-update t))
    ("file.changed" (tackle--file-changed (alist-get 'path data))))
  (tackle--log-event type data)
  (run-hook-with-args 'tackle-event-functions type data))

(defun tackle--file-changed (path)
  "Revert an unmodified buffer visiting PATH (relative to the workspace)."
  (when (and path tackle--root)
    (let* ((file (expand-file-name path tackle--root))
           (buffer (find-buffer-visiting file)))
      (when buffer
        (with-current-buffer buffer
          (if (buffer-modified-p)
              (message "tackle: the agent changed %s, which has unsaved edits here; not reverted" path)
            (revert-buffer t t t)))))))

(defun tackle--summary (type data)
  "One line describing the event TYPE with DATA."
  (let ((tool (alist-get 'tool data))
        (id (alist-get 'toolCallId data)))
    (pcase type
      ("tool.call" (format "%s %s%s" tool (tackle--one-line (alist-get 'args data))
                           (if (eq (alist-get 'requiresApproval data) t) " (asks)" "")))
      ("tool.result"
       (let ((outcome (alist-get 'outcome data)))
         (format "%s %s in %s ms" tool (alist-get 'status outcome) (alist-get 'executionTimeMs outcome))))
      ("tool.output" (format "%s %s" tool (tackle--one-line (alist-get 'chunk data))))
      ("tool.progress" (format "%s %s%s %s" tool (alist-get 'progress data)
                               (if (alist-get 'total data) (format "/%s" (alist-get 'total data)) "")
                               (or (alist-get 'message data) "")))
      ("tool.approval" (format "%s %s by %s" tool (if (eq (alist-get 'approved data) t) "approved" "rejected")
                               (alist-get 'approvedBy data)))
      ("file.changed" (format "%s %s" (alist-get 'operation data) (alist-get 'path data)))
      ("agent.state" (format "%s" (alist-get 'state data)))
      ("approval.requested" (format "%s waits for a person: %s" tool (alist-get 'reason data)))
      ("approval.resolved" (format "%s %s" tool (if (eq (alist-get 'approved data) t) "approved" "rejected")))
      (_ (format "%s" (or id ""))))))

(defconst tackle--hidden-regexp
  (rx (or (>= 2 (any (#xfe00 . #xfe0f) (#xe0100 . #xe01ef) (#x180b . #x180d) #x180f))
          (any (0 . 8) (11 . 31) (127 . 159)
               ;; every format character (general category Cf)
               #xad (#x600 . #x605) #x61c #x6dd #x70f #x890 #x891 #x8e2 #x180e
               (#x200b . #x200f) (#x202a . #x202e) (#x2060 . #x2064) (#x2066 . #x206f) #xfeff (#xfff9 . #xfffb)
               #x110bd #x110cd (#x13430 . #x1343f) (#x1bca0 . #x1bca3) (#x1d173 . #x1d17a) (#xe0000 . #xe007f)
               #x2028 #x2029
               #x34f #x115f #x1160 #x17b4 #x17b5 #x3164 #xffa0 (#xe0100 . #xe01ef))))
  "Control characters, format characters and characters that draw nothing.
A run of two or more variation selectors counts too.  They are shown as
escapes, as the terminal prompt and the dashboard show them.")

(defconst tackle--blank-run-regexp
  (rx (>= 8 (any ?\s #xa0 #x1680 (#x2000 . #x200a) #x202f #x205f #x2800 #x3000)))
  "A run of 8 or more characters drawn as blank space.
It is counted, as the terminal prompt counts it.")

(defun tackle--visible (text &optional one-line)
  "TEXT with control characters and reordering marks written as \\xNN or \\uNNNN.
With ONE-LINE, newlines and tabs are written as \\n and \\t too, and a run of
8 or more blanks is counted, as the terminal prompt counts it."
  (let* ((case-fold-search nil)
         (out (replace-regexp-in-string
               tackle--hidden-regexp
               (lambda (run)
                 (mapconcat (lambda (c)
                              (cond ((eq c ?\r) "\\r")
                                    ((< c #x100) (format "\\x%02x" c))
                                    ((<= c #xffff) (format "\\u%04x" c))
                                    (t (format "\\u{%x}" c))))
                            run ""))
               text t t)))
    (if one-line
        (replace-regexp-in-string
         tackle--blank-run-regexp (lambda (run) (format " [%d spaces] " (length run)))
         (replace-regexp-in-string "\t" "\\t" (replace-regexp-in-string "\n" "\\n" out t t) t t)
         t t)
      out)))

(defun tackle--one-line (value &optional width)
  "VALUE on one line, escapes visible, cut at WIDTH (100).
What is left is counted."
  (let* ((text (tackle--visible (if (stringp value) value (tackle--json-encode value)) t))
         (width (or width 100)))
    (if (<= (length text) width)
        text
      (format "%s… (%d more characters)" (substring text 0 width) (- (length text) width)))))

(defvar tackle-events-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'tackle-event-details)
    map))

(define-derived-mode tackle-events-mode special-mode "tackle-events"
  "What the agent does, one line per event.  RET shows an event in full.")

(defun tackle--log-event (type data)
  (with-current-buffer (get-buffer-create "*tackle-events*")
    (unless (derived-mode-p 'tackle-events-mode) (tackle-events-mode))
    (let ((inhibit-read-only t)
          (at-end (= (point) (point-max))))
      (save-excursion
        (goto-char (point-max))
        (insert (propertize (format "%s %-18s %s\n" (format-time-string "%H:%M:%S") type (tackle--summary type data))
                            'tackle-event (cons type data)))
        (let ((excess (- (count-lines (point-min) (point-max)) tackle-events-max-lines)))
          (when (> excess 0)
            (goto-char (point-min))
            (forward-line excess)
            (delete-region (point-min) (point)))))
      (when at-end (goto-char (point-max))))))

(defun tackle-event-details ()
  "Show the event at point in full."
  (interactive)
  (let ((event (get-text-property (point) 'tackle-event)))
    (unless event (user-error "No event on this line"))
    (tackle--show-json (format "*tackle-event %s*" (car event)) (cdr event))))

(defun tackle--show-json (name value)
  (with-current-buffer (get-buffer-create name)
    (let ((inhibit-read-only t))
      (erase-buffer)
      (insert (tackle--pretty-json value))
      (goto-char (point-min))
      (js-mode)
      (view-mode 1))
    (display-buffer (current-buffer))))

(defun tackle--pretty-json (value)
  (with-temp-buffer
    (insert (tackle--json-encode value))
    (json-pretty-print-buffer)
    (buffer-string)))

;;;; Mode line

(defun tackle--mode-line ()
  (when tackle--url
    (concat " tackle:" (if (tackle-connected-p) tackle--agent-state "offline")
            (if tackle--pending (format "[%d]" (length tackle--pending)) ""))))

(defvar tackle--mode-line-construct '(:eval (tackle--mode-line)))

(defun tackle--install-mode-line ()
  (unless (member tackle--mode-line-construct global-mode-string)
    (setq global-mode-string (append (or global-mode-string '("")) (list tackle--mode-line-construct)))))

;;;; Approvals

(defvar tackle-approvals-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map "a" #'tackle-approvals-approve)
    (define-key map "y" #'tackle-approvals-approve)
    (define-key map "r" #'tackle-approvals-reject)
    (define-key map "n" #'tackle-approvals-reject)
    (define-key map "A" #'tackle-approvals-always)
    (define-key map "e" #'tackle-approvals-edit)
    (define-key map (kbd "RET") #'tackle-approvals-details)
    (define-key map "?" #'tackle-approvals-details)
    (define-key map "g" #'tackle-refresh)
    (define-key map (kbd "TAB") #'tackle-approvals-next)
    (define-key map "j" #'tackle-approvals-next)
    (define-key map (kbd "<backtab>") #'tackle-approvals-previous)
    (define-key map "k" #'tackle-approvals-previous)
    map))

(define-derived-mode tackle-approvals-mode special-mode "tackle-approvals"
  "The calls waiting for a person.
\\<tackle-approvals-mode-map>a or y approve, r or n reject with a message,
A always, e edit the arguments, ? details, TAB and S-TAB move, g refresh."
  (setq-local revert-buffer-function (lambda (&rest _) (tackle-refresh))))

;;;###autoload
(defun tackle-approvals ()
  "Show the calls waiting for a person."
  (interactive)
  (tackle--render-approvals)
  (pop-to-buffer (get-buffer-create "*tackle-approvals*")))

(defun tackle-refresh ()
  "Reload the waiting approvals from the server."
  (interactive)
  (when tackle--url
    (let ((log (list 'reload)))
      (push log tackle--approval-logs)
      (tackle--request "GET" "/api/approvals" nil
                       (lambda (status data)
                         (setq tackle--approval-logs (delq log tackle--approval-logs))
                         (when (eq status 200)
                           ;; What the events said since the request went out is newer than the answer.
                           (let ((pending data))
                             (dolist (change (reverse (cdr log)))
                               (setq pending (if (eq (car change) 'added)
                                                 (tackle--pending-with pending (cdr change))
                                               (tackle--pending-without pending (cdr change)))))
                             (setq tackle--pending pending))
                           (tackle--render-approvals)
                           (force-mode-line-update t)))))))

(defun tackle--fontify-diff (text)
  "TEXT with diff-mode's faces."
  (with-temp-buffer
    (insert text)
    (delay-mode-hooks (diff-mode))
    (font-lock-ensure)
    (let ((result (buffer-string)))
      ;; font-lock uses `face'; keep it as the face text shows with outside diff-mode.
      (let ((pos 0))
        (while (< pos (length result))
          (let ((next (next-single-property-change pos 'face result (length result)))
                (face (get-text-property pos 'face result)))
            (when face (put-text-property pos next 'font-lock-face face result))
            (setq pos next))))
      result)))

(defun tackle--render-approvals ()
  (let ((buffer (get-buffer "*tackle-approvals*")))
    (when (or buffer tackle--pending)
      (with-current-buffer (get-buffer-create "*tackle-approvals*")
        (unless (derived-mode-p 'tackle-approvals-mode) (tackle-approvals-mode))
        (let ((inhibit-read-only t)
              (line (line-number-at-pos)))
          (erase-buffer)
          (if (null tackle--pending)
              (insert (if tackle--url "No calls are waiting for approval.\n" "Not connected.\n"))
            (dolist (request tackle--pending)
              (tackle--insert-approval request)))
          (goto-char (point-min))
          (forward-line (1- line)))))))

(defun tackle--insert-approval (request)
  (let ((start (point)))
    (insert (propertize (tackle--visible (format "%s" (alist-get 'tool request)) t) 'face 'bold)
            (format "  [%s]  %s\n" (alist-get 'effect request) (tackle--visible (alist-get 'reason request) t)))
    (when (eq (alist-get 'orphaned request) t)
      (insert (propertize (format "  Orphaned: the process that asked (%s) is gone; nothing will run it.  r clears it.\n"
                                  (tackle--visible (format "%s" (alist-get 'instance request)) t))
                          'face 'warning)))
    (when-let ((context (alist-get 'context request)))
      (insert (format "  Context: %s\n" (tackle--visible context t))))
    (insert "  Arguments: " (tackle--one-line (alist-get 'args request) 200) "\n")
    (when-let ((preview (alist-get 'preview request)))
      ;; diff-mode fontifies only complete lines: the last one needs its newline.
      (insert (tackle--fontify-diff (concat (string-trim-right (tackle--visible preview)) "\n"))))
    (when-let ((rules (append (alist-get 'alwaysRules request) nil)))
      (insert (propertize (format "  A keeps: %s (C-u A for a wider rule)\n" (tackle--visible (mapconcat #'identity rules ", ") t))
                          'face 'shadow)))
    (insert (propertize "  a approve  r reject  A always  e edit  RET details\n\n" 'face 'shadow))
    (put-text-property start (point) 'tackle-approval (tackle--request-id request))))

(defun tackle--approval-at-point ()
  (or (get-text-property (point) 'tackle-approval)
      (and (> (point) (point-min)) (get-text-property (1- (point)) 'tackle-approval))
      (user-error "No approval request here")))

(defun tackle--request-by-id (id)
  (cl-find id tackle--pending :key #'tackle--request-id :test #'equal))

(defun tackle--answer (id path body what)
  "POST BODY to PATH to answer approval ID; WHAT is said when done.
The answer carries who gave it (`user-login-name'), kept with it on the desk."
  (tackle--request "POST" path (cons (cons 'by (user-login-name)) body)
                   (lambda (status data)
                     (if (eq status 200)
                         (progn
                           (tackle--drop-pending id)
                           (tackle--render-approvals)
                           (message "tackle: %s" what))
                       (message "tackle: could not answer: %s" (if (listp data) (alist-get 'error data) data))))))

(defun tackle--approval-path (id action)
  (format "/api/approvals/%s/%s" (url-hexify-string id) action))

(defun tackle-approvals-approve ()
  "Approve the call at point."
  (interactive)
  (let ((id (tackle--approval-at-point)))
    (tackle--answer id (tackle--approval-path id "approve") nil "approved")))

(defun tackle-approvals-always (&optional wider)
  "Approve the call at point, and the same call again for the session.
What is kept is the narrowest rule, shown in the echo area.  With a prefix
argument, read a WIDER rule to keep instead (kept only if it covers the call)."
  (interactive
   (list (when current-prefix-arg
           (read-string "Wider rule to allow for this session (e.g. write_file(src/**)): "))))
  (let* ((id (tackle--approval-at-point))
         (request (tackle--request-by-id id))
         (rules (or (and wider (not (string-empty-p wider)) wider)
                    (mapconcat #'identity (append (alist-get 'alwaysRules request) nil) ", ")
                    (alist-get 'tool request))))
    (tackle--answer id (tackle--approval-path id "approve")
                    (if (and wider (not (string-empty-p wider))) `((always . t) (alwaysRule . ,wider)) '((always . t)))
                    (format "approved, and always %s from now on" (tackle--visible (format "%s" rules) t)))))

(defun tackle-approvals-reject (message)
  "Reject the call at point, telling the model MESSAGE."
  (interactive (progn (tackle--approval-at-point)
                      (list (read-string "Reject; message for the model: "))))
  (let ((id (tackle--approval-at-point)))
    (tackle--answer id (tackle--approval-path id "reject")
                    (unless (string-empty-p message) `((message . ,message))) "rejected")))

(defun tackle-approvals-details ()
  "Show everything about the call at point."
  (interactive)
  (let ((request (tackle--request-by-id (tackle--approval-at-point))))
    (with-current-buffer (get-buffer-create "*Agent Approval*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (propertize (tackle--visible (format "%s" (alist-get 'tool request)) t) 'face 'bold)
                (format "  [%s]\n\nWhy it asks: %s\n" (alist-get 'effect request)
                        (tackle--visible (alist-get 'reason request) t)))
        (when-let ((context (alist-get 'context request))) (insert "Context: " (tackle--visible context t) "\n"))
        (when-let ((description (alist-get 'description request))) (insert "\n" (tackle--visible description) "\n"))
        (insert "\nArguments:\n" (tackle--visible (tackle--pretty-json (alist-get 'args request))) "\n")
        (when-let ((preview (alist-get 'preview request)))
          (insert "\nPreview:\n" (tackle--fontify-diff (concat (string-trim-right (tackle--visible preview)) "\n"))))
        (goto-char (point-min))
        (special-mode))
      (display-buffer (current-buffer)))))

(defun tackle--approvals-move (step)
  "Move to the next request (STEP 1) or the previous one (STEP -1)."
  (let ((find (if (> step 0) #'next-single-property-change #'previous-single-property-change)))
    (let ((pos (funcall find (point) 'tackle-approval)))
      (when pos
        (goto-char pos)
        ;; Landing between two requests (on the blank line): one more step reaches a request.
        (unless (get-text-property (point) 'tackle-approval)
          (let ((again (funcall find (point) 'tackle-approval)))
            (when again (goto-char again))))))))

(defun tackle-approvals-next ()
  "Move to the next approval request."
  (interactive)
  (tackle--approvals-move 1))

(defun tackle-approvals-previous ()
  "Move to the previous approval request."
  (interactive)
  (tackle--approvals-move -1))

;;;; Editing arguments

(defvar-local tackle--editing nil "The approval id whose arguments this buffer edits.")

(defvar tackle-edit-args-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'tackle-edit-args-approve)
    (define-key map (kbd "C-c C-k") #'tackle-edit-args-abort)
    map))

(define-minor-mode tackle-edit-args-mode
  "Edit a call's arguments as JSON; C-c C-c approves them, C-c C-k gives up."
  :lighter " tackle-edit")

(defun tackle-approvals-edit ()
  "Edit the arguments of the call at point as JSON, then approve them.
Returns the editing buffer."
  (interactive)
  (let* ((id (tackle--approval-at-point))
         (request (tackle--request-by-id id)))
    (with-current-buffer (get-buffer-create (format "*tackle-edit %s*" id))
      (erase-buffer)
      (insert (tackle--pretty-json (alist-get 'args request)))
      (goto-char (point-min))
      (js-mode)
      (tackle-edit-args-mode 1)
      (setq tackle--editing id)
      (setq header-line-format
            (substitute-command-keys "Edit the arguments; \\[tackle-edit-args-approve] approves them, \\[tackle-edit-args-abort] gives up"))
      (pop-to-buffer (current-buffer))
      (current-buffer))))

(defun tackle-edit-args-approve ()
  "Approve the call with the arguments in this buffer."
  (interactive)
  (let* ((id tackle--editing)
         (args (condition-case err (tackle--json-read (buffer-string))
                 (error (user-error "Not valid JSON: %s" (error-message-string err))))))
    (unless (tackle--object-p args) (user-error "The arguments must be a JSON object"))
    (tackle--answer id (tackle--approval-path id "approve") `((modifiedArgs . ,args)) "approved with edited arguments")
    (quit-window t)))

(defun tackle-edit-args-abort ()
  "Close this buffer without answering."
  (interactive)
  (quit-window t))

;;;; Calling tools by hand

(defun tackle-tools ()
  "The server's tools (GET /api/tools), fetched once per connection."
  (tackle--require-connection)
  (or tackle--tools (setq tackle--tools (tackle--request-sync "GET" "/api/tools"))))

(defun tackle--read-argument (name schema required)
  "Ask for argument NAME described by SCHEMA; nil when optional and left empty."
  (let* ((type (alist-get 'type schema))
         (prompt (format "%s%s (%s%s): " name (if required "" " [optional]") (or type "json")
                         (if-let ((d (alist-get 'description schema))) (concat ", " d) ""))))
    (if (equal type "boolean")
        (let ((answer (completing-read prompt (if required '("true" "false") '("true" "false" "")) nil t)))
          (cond ((equal answer "true") t) ((equal answer "false") :json-false)))
      (let ((text (read-string prompt)))
        (unless (string-empty-p text)
          (pcase type
            ("string" text)
            ((or "integer" "number") (string-to-number text))
            (_ (tackle--json-read text))))))))

;;;###autoload
(defun tackle-call (tool args)
  "Call TOOL with ARGS (an alist) and show the outcome.
Interactively, completes the tool's name and asks for each argument."
  (interactive
   (let* ((tools (tackle-tools))
          (name (completing-read "Tool: " (mapcar (lambda (tool) (alist-get 'name tool)) tools) nil t))
          (tool (cl-find name tools :key (lambda (tool) (alist-get 'name tool)) :test #'equal))
          (schema (alist-get 'inputSchema tool))
          (required (mapcar (lambda (r) (intern r)) (alist-get 'required schema)))
          (properties (alist-get 'properties schema))
          (ordered (append (cl-remove-if-not (lambda (p) (memq (car p) required)) properties)
                           (cl-remove-if (lambda (p) (memq (car p) required)) properties)))
          args)
     (dolist (property ordered)
       (let ((value (tackle--read-argument (car property) (cdr property) (memq (car property) required))))
         (when value (push (cons (car property) value) args))))
     (list name (nreverse args))))
  (message "tackle: calling %s..." tool)
  (tackle--request "POST" "/api/calls" `((name . ,tool) (args . ,(or args (make-hash-table))))
                   (lambda (status data)
                     (if (eq status 200)
                         (tackle--show-outcome tool data)
                       (message "tackle: %s failed: %s" tool (if (listp data) (alist-get 'error data) data))))))

(defun tackle--show-outcome (tool outcome)
  (with-current-buffer (get-buffer-create "*tackle-outcome*")
    (let ((inhibit-read-only t))
      (erase-buffer)
      (insert (propertize (format "%s: %s" tool (alist-get 'status outcome)) 'face 'bold)
              (format " (%s ms)\n\n" (alist-get 'executionTimeMs outcome)))
      (when-let ((err (alist-get 'error outcome)))
        (insert (format "%s: %s\n\n" (alist-get 'code err) (alist-get 'message err))))
      (insert (or (alist-get 'content outcome) ""))
      (goto-char (point-min))
      (special-mode))
    (display-buffer (current-buffer)))
  (message "tackle: %s %s" tool (alist-get 'status outcome)))

;;;###autoload
(defun tackle-undo (&optional count checkpoint)
  "Undo what the last COUNT tool calls changed in the workspace's files.
With CHECKPOINT (a name), undo every call after that checkpoint instead.
Interactively, a prefix argument asks for COUNT.  Nothing changes when a
file was changed since by something else; the message says which.
Unmodified buffers visiting restored files are reverted."
  (interactive (list (if current-prefix-arg (read-number "Undo how many calls: " 1) 1)))
  (let* ((result (tackle--request-sync "POST" "/api/undo"
                                       (if checkpoint `((to . ,checkpoint)) `((count . ,(or count 1))))))
         (files (alist-get 'files result))
         (calls (alist-get 'undone result)))
    (dolist (file files)
      (when (equal (alist-get 'restored file) "content")
        (tackle--file-changed (alist-get 'path file))))
    (message "tackle: undid %s (%d file%s restored)"
             (mapconcat (lambda (call) (alist-get 'tool call)) calls ", ")
             (length files) (if (= (length files) 1) "" "s"))
    result))

;;;###autoload
(defun tackle-undo-to-checkpoint (name)
  "Undo every tool call made after the checkpoint NAME."
  (interactive
   (list (completing-read "Undo to checkpoint: "
                          (delete-dups
                           (delq nil (mapcar (lambda (item) (alist-get 'name item))
                                             (tackle--request-sync "GET" "/api/checkpoints")))))))
  (tackle-undo nil name))

;;;###autoload
(defun tackle-checkpoint (name)
  "Name the workspace's present state NAME, to undo back to later."
  (interactive "sCheckpoint name: ")
  (tackle--request-sync "POST" "/api/checkpoints" `((name . ,name)))
  (message "tackle: checkpoint %s made; M-x tackle-undo-to-checkpoint comes back to it" name))

;;;; Lisp API

(defun tackle-call-sync (tool args &optional context)
  "Call TOOL with ARGS (an alist) and return the outcome alist.
CONTEXT, a string, is shown to the person if the call needs approval.
Waits (C-g interrupts) until the call ends, approval included."
  (tackle--request-sync "POST" "/api/calls"
                        `((name . ,tool) (args . ,(or args (make-hash-table)))
                          ,@(when context `((context . ,context))))))

(defun tackle-pending ()
  "The calls waiting for approval, as GET /api/approvals has them."
  (tackle--request-sync "GET" "/api/approvals"))

(defun tackle--id-of (call)
  "The tool call id of CALL: an id string, or an alist with one."
  (if (stringp call) call
    (or (alist-get 'toolCallId call) (alist-get 'tool_call_id call)
        (signal 'tackle-error (list "No tool call id in" call)))))

(defun tackle-approve (id &optional modified-args always)
  "Approve the call ID.
With MODIFIED-ARGS (an alist), run it with those arguments instead;
with ALWAYS, approve calls like it for the rest of the session."
  (tackle--request-sync "POST" (tackle--approval-path (tackle--id-of id) "approve")
                        `(,@(when modified-args `((modifiedArgs . ,modified-args)))
                          ,@(when always '((always . t))))))

(defun tackle-reject (id message)
  "Reject the call ID, telling the model MESSAGE."
  (tackle--request-sync "POST" (tackle--approval-path (tackle--id-of id) "reject")
                        (when message `((message . ,message)))))

(defun emacs-agent-api-approve (tool-call &optional modified-args always)
  "Approve TOOL-CALL (an id or an alist with one).
Spec 002's name for `tackle-approve'."
  (tackle-approve tool-call modified-args always))

(defun emacs-agent-api-reject (tool-call &optional message)
  "Reject TOOL-CALL (an id or an alist with one) with MESSAGE.
Spec 002's name for `tackle-reject'."
  (tackle-reject tool-call (or message "Rejected in Emacs.")))

;;;; Spec 002's names

(defun emacs-agent-approve-tool (&optional tool-call)
  "Show the calls waiting for a person, at TOOL-CALL (an id or an alist with one).
Spec 002's name: there y approves, n rejects, A always approves, ? explains."
  (interactive)
  (tackle-approvals)
  (when tool-call
    (let ((id (tackle--id-of tool-call))
          (pos (point-min))
          found)
      (while (and pos (not found))
        (let ((desk-id (get-text-property pos 'tackle-approval)))
          (if (and desk-id (equal (alist-get 'toolCallId (tackle--request-by-id desk-id)) id))
              (setq found pos)
            (setq pos (next-single-property-change pos 'tackle-approval)))))
      (when found (goto-char found)))))

(defun tackle--tool-names ()
  "The names of the server's tools."
  (mapcar (lambda (tool) (alist-get 'name tool)) (tackle-tools)))

(defun emacs-agent-config-auto-approve (tool)
  "Approve every call of TOOL from now on, for every agent on this desk.
Spec 002's name: keeps the rule TOOL at the server's shared desk."
  (interactive (list (completing-read "Always approve tool: " (tackle--tool-names))))
  (tackle--request-sync "POST" "/api/rules/shared"
                        `((rule . ,tool) (by . ,(format "%s in Emacs" user-login-name)))))

(defun emacs-agent-show-tool-help (tool)
  "Show what TOOL does and the arguments it takes.  Spec 002's name."
  (interactive (list (completing-read "Tool: " (tackle--tool-names))))
  (let ((found (seq-find (lambda (entry) (equal (alist-get 'name entry) tool)) (tackle-tools))))
    (unless found (user-error "No tool named %s" tool))
    (with-current-buffer (get-buffer-create "*tackle-tool-help*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (tackle--visible tool) "\n\n"
                (tackle--visible (or (alist-get 'description found) ""))
                "\n\nArguments:\n" (tackle--pretty-json (alist-get 'inputSchema found)) "\n")
        (goto-char (point-min))
        (special-mode))
      (display-buffer (current-buffer)))))

(provide 'tackle)
;;; tackle.el ends here
